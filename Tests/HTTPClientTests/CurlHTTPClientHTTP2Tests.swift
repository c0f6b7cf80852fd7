import PipelineTesting
import Testing

@testable import HTTPClient

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
                // Then: all 50 are at the server at the same time (which over HTTP/1.1 would
                // take 50 connections)
                let responses = try await slowBurst(50, client: client, url: proxy.url, server: server)

                #expect(responses.count == 50)
                #expect(responses.allSatisfy { $0.status == 200 && $0.version == "2" })
                let served = await proxy.requests(awaiting: 50)
                #expect(served.count == 50)
                #expect(Set(served.map(\.httpProtocol)) == ["HTTP/2.0"])
                #expect(Set(served.map(\.connection)).count == 1)
            }
        }
    }

    @Test func thousandsAllowed_eachLaneIsOneConnection() async throws {
        try await TestServer.run { server in
            // Given: a client allowed 1,024 connections, as a validator at --concurrency 1024
            let proxy = try NginxTLSProxy(upstreamPort: server.port)
            defer { proxy.stop() }
            try await withClient(
                .init(maxConnections: 1024, maxConnectionsPerHost: 1024, caFile: proxy.certificateFile)
            ) {
                client in
                // When: 300 slow requests go out together
                let responses = try await slowBurst(300, client: client, url: proxy.url, server: server)

                // Then: all at the server at once, over one HTTP/2 connection per lane, not one
                // connection per request beyond libcurl's 100 streams
                #expect(responses.allSatisfy { $0.status == 200 && $0.version == "2" })
                let connections = Set(proxy.requests().map(\.connection)).count
                #expect(connections <= client.lanes.count, "\(connections) connections for \(client.lanes.count) lanes")
            }
        }
    }

    @Test func tlsWithoutHTTP2_burstStillGoesOutAtOnce() async throws {
        try await TestServer.run { server in
            // Given: a TLS server that offers HTTP/1.1 only (a webhook receiver, say)
            let proxy = try NginxTLSProxy(upstreamPort: server.port, http2: false)
            defer { proxy.stop() }
            try await withClient(.init(caFile: proxy.certificateFile)) { client in
                // When: 40 slow requests go out together, each waiting to learn whether the
                // first connection multiplexes
                let responses = try await slowBurst(40, client: client, url: proxy.url, server: server)

                // Then: it does not, and all 40 still reach the server at once, on 40 connections
                #expect(responses.allSatisfy { $0.status == 200 && $0.version == "1.1" })
                #expect(Set(proxy.requests().map(\.httpProtocol)) == ["HTTP/1.1"])
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

    /// Sends `count` requests that the server holds for 1.5 s, returns once all of them were
    /// at the server at the same moment and have been answered (throws if they never were).
    private func slowBurst(_ count: Int, client: CurlHTTPClient, url: String, server: TestServer) async throws
        -> [HTTPResponse]
    {
        try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<count {
                group.addTask { try await client.execute(HTTPRequest(url: url + "/sleep?ms=1500")) }
            }
            try await waitUntil { server.sleepers.current == count }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
