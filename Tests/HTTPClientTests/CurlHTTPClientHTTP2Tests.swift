import HTTPClient
import PipelineTesting
import Testing

/// HTTP/2 against a real HTTP/2 server: Debian's nginx over TLS, as Apple's endpoints speak
/// it, in front of the plain-HTTP test server.
@Suite(.enabled(if: NginxTLSProxy.isAvailable, "needs nginx and openssl (scripts/setup.sh --tests)"))
struct CurlHTTPClientHTTP2Tests {
    @Test func oneConnection_carriesManyRequestsAtOnce() async throws {
        try await TestServer.run { server in
            // Given: nginx offering h2, and a client allowed one connection to it
            let proxy = try NginxTLSProxy(upstreamPort: server.port)
            defer { proxy.stop() }
            try await withClient(.init(maxConnectionsPerHost: 1, caFile: proxy.certificateFile)) { client in
                // When: 50 slow requests go out together
                let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                    for _ in 0..<50 {
                        group.addTask { try await client.execute(HTTPRequest(url: proxy.url + "/sleep?ms=1500")) }
                    }
                    // Then: all 50 are at the server at the same time, which over HTTP/1.1
                    // would take 50 connections
                    try await waitUntil { server.sleepers.current == 50 }
                    return try await group.reduce(into: []) { $0.append($1) }
                }

                #expect(responses.count == 50)
                #expect(responses.allSatisfy { $0.status == 200 && $0.version == "2" })
                let served = proxy.requests()
                #expect(served.count == 50)
                #expect(Set(served.map(\.httpProtocol)) == ["HTTP/2.0"])
                #expect(Set(served.map(\.connection)).count == 1)
            }
        }
    }

    @Test func connectionKeptAlive_acrossRequests() async throws {
        try await TestServer.run { server in
            let proxy = try NginxTLSProxy(upstreamPort: server.port)
            defer { proxy.stop() }
            try await withClient(.init(caFile: proxy.certificateFile)) { client in
                // When: requests follow one another
                for _ in 0..<5 {
                    let response = try await client.execute(HTTPRequest(url: proxy.url + "/hello"))
                    #expect(response.status == 200)
                    #expect(String(decoding: response.body, as: UTF8.self) == "hello")
                }
                // Then: one TLS handshake served them all
                #expect(Set(proxy.requests().map(\.connection)).count == 1)
            }
        }
    }

    @Test func plainHTTPServer_answersInHTTP1_1() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                let response = try await client.execute(HTTPRequest(url: server.url("/hello")))
                #expect(response.version == "1.1")
            }
        }
    }
}
