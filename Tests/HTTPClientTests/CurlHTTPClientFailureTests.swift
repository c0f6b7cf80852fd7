import HTTPClient
import Testing

/// Requests that get no response, and what the error says to do about it.
@Suite struct CurlHTTPClientFailureTests {
    @Test func slowServer_failsWithRetryableTimeout() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // Given: a server that answers after 10 s, and a 300 ms limit
                let request = HTTPRequest(url: server.url("/sleep?ms=10000"), timeout: .milliseconds(300))
                let start = ContinuousClock.now

                // When
                let error = await failure { try await client.execute(request) }

                // Then: a timeout, long before the server would have answered
                #expect(error?.code == .timeout)
                #expect(error?.isRetryable == true)
                #expect(error?.message.contains("timed out") == true)
                #expect(ContinuousClock.now - start < .seconds(8))
            }
        }
    }

    @Test func closedPort_failsWithRetryableConnectionRefused() async throws {
        try await withClient { client in
            // Given: a loopback port nothing listens on
            let closed = try ClosedPort()

            // When
            let error = await failure {
                try await client.execute(HTTPRequest(url: "http://127.0.0.1:\(closed.port)/", timeout: .seconds(20)))
            }

            // Then: refused, retryable, and not mistaken for a timeout
            #expect(error?.code == .connectionRefused)
            #expect(error?.code != .timeout)
            #expect(error?.isRetryable == true)
            #expect(error?.curlCode == 7)
            #expect(error?.message.contains("\(closed.port)") == true)
        }
    }

    @Test func unresolvableHost_failsWithDNSFailure() async throws {
        try await withClient { client in
            // `.invalid` is reserved never to resolve (RFC 6761), so no network is needed.
            let error = await failure {
                try await client.execute(HTTPRequest(url: "http://receipts.invalid/"))
            }
            #expect(error?.code == .dnsFailure)
            #expect(error?.isRetryable == true)
        }
    }

    @Test(arguments: [
        HTTPRequest(url: "http://127.0.0.1/", headers: [("X-Evil", "a\r\nX-Injected: 1")]),
        HTTPRequest(url: "http://127.0.0.1/", headers: [("Bad Name", "x")]),
        HTTPRequest(method: .init(rawValue: "GET /admin"), url: "http://127.0.0.1/"),
        HTTPRequest(url: "ftp://127.0.0.1/receipt"),
        HTTPRequest(url: "http://127.0.0.1/\r\nHost: evil"),
        HTTPRequest(url: "http://127.0.0.1/", timeout: .zero),
    ])
    func malformedRequest_failsWithInvalidRequest_notRetryable(request: HTTPRequest) async throws {
        try await withClient { client in
            let error = await failure { try await client.execute(request) }
            #expect(error?.code == .invalidRequest)
            #expect(error?.isRetryable == false)
        }
    }

    @Test func oversizedResponse_failsWithResponseTooLarge() async throws {
        try await TestServer.run { server in
            try await withClient(.init(maxResponseBodySize: 100)) { client in
                // When: the server echoes 1,000 bytes to a client that accepts 100
                let error = await failure {
                    try await client.execute(
                        HTTPRequest(method: .post, url: server.url("/echo"), body: Array(repeating: 7, count: 1000))
                    )
                }

                // Then
                #expect(error?.code == .responseTooLarge)
                #expect(error?.isRetryable == false)

                // And a response within the limit still works on the same client
                let small = try await client.execute(HTTPRequest(method: .post, url: server.url("/echo"), body: [1]))
                #expect(small.body == [1])
            }
        }
    }
}
