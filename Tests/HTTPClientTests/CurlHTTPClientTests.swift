import HTTPClient
import Testing

/// Requests that get a response, against a real server on loopback.
@Suite struct CurlHTTPClientTests {
    @Test func get_returnsStatusHeadersAndBody() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // When
                let response = try await client.execute(HTTPRequest(url: server.url("/hello")))

                // Then
                #expect(response.status == 200)
                #expect(response.isSuccess)
                #expect(response.bodyString == "hello")
                #expect(response.header("content-length") == "5")
            }
        }
    }

    @Test func thousandConcurrentPosts_allCompleteWithTheirOwnBodies() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // Given: 1,000 requests in flight at once, each with a body of its own
                let count = 1000

                // When
                let matching = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<count {
                        group.addTask {
                            let payload =
                                Array("request-\(index):".utf8) + Array(repeating: UInt8(index % 251), count: index)
                            let response = try await client.execute(
                                HTTPRequest(method: .post, url: server.url("/echo"), body: payload)
                            )
                            return response.status == 200 && response.body == payload
                                && response.header("x-body-length") == String(payload.count)
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }

                // Then: every response carries its own request's body back
                #expect(matching == count)
            }
        }
    }

    @Test func headers_reachTheServer_andResponseHeadersAreCaseInsensitive() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // When
                let response = try await client.execute(
                    HTTPRequest(url: server.url("/headers"), headers: [("X-Request-Id", "req-7")])
                )

                // Then
                #expect(response.bodyString == "req-7")
                #expect(response.header("X-Reply-Token") == "token-42")
                #expect(response.header("x-reply-token") == "token-42")
                #expect(response.header("X-REPLY-TOKEN") == "token-42")
                #expect(response.headers(named: "x-reply-token") == ["token-42"])
                #expect(response.header("x-reply-tokens") == nil)
            }
        }
    }

    @Test(arguments: [301, 404, 429, 500, 503])
    func nonSuccessStatus_isAResponse_notAnError(status: Int) async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // When
                let response = try await client.execute(HTTPRequest(url: server.url("/status/\(status)")))

                // Then
                #expect(response.status == status)
                #expect(!response.isSuccess)
                #expect(response.bodyString == "status \(status)")
            }
        }
    }

    @Test func sequentialRequests_reuseOneConnection() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // When: five requests one after another
                var peers: [String] = []
                for _ in 0..<5 {
                    peers.append(try await client.execute(HTTPRequest(url: server.url("/peer"))).bodyString)
                }

                // Then: the server saw all five on the same client port, so on one connection
                #expect(Int(peers[0]) != nil)
                #expect(Set(peers).count == 1)

                // And another client is seen on another connection, so the check can tell them apart
                let other = try await withClient { other in
                    try await other.execute(HTTPRequest(url: server.url("/peer"))).bodyString
                }
                #expect(other != peers[0])
            }
        }
    }

    @Test func methods_putPatchDeleteAndHead() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // When
                let put = try await client.execute(
                    HTTPRequest(method: .put, url: server.url("/echo"), body: Array("put-body".utf8))
                )
                let patch = try await client.execute(HTTPRequest(method: .patch, url: server.url("/echo")))
                let delete = try await client.execute(HTTPRequest(method: .delete, url: server.url("/echo")))
                let head = try await client.execute(HTTPRequest(method: .head, url: server.url("/hello")))

                // Then
                #expect(put.header("x-method") == "PUT")
                #expect(put.bodyString == "put-body")
                #expect(patch.header("x-method") == "PATCH")
                #expect(patch.header("x-body-length") == "0")
                #expect(delete.header("x-method") == "DELETE")
                #expect(delete.status == 200)
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
            }
        }
    }

    @Test func postWithoutContentType_isSentAsOctetStream() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // When: the body would otherwise be labelled a form by libcurl
                let response = try await client.execute(
                    HTTPRequest(method: .post, url: server.url("/content-type"), body: [1, 2, 3])
                )
                let json = try await client.execute(
                    HTTPRequest(
                        method: .post,
                        url: server.url("/content-type"),
                        headers: [("Content-Type", "application/json")],
                        body: Array("{}".utf8)
                    )
                )

                // Then
                #expect(response.bodyString == "application/octet-stream")
                #expect(json.bodyString == "application/json")
            }
        }
    }
}
