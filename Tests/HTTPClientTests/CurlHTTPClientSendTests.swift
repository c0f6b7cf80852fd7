import Foundation
import HTTPClient
import Synchronization
import Testing

/// `send(_:completion:)`: the same outcomes as `execute`, handed to a callback on the client's
/// thread instead of an awaiting task.
@Suite struct CurlHTTPClientSendTests {
    @Test func manyRequestsAtOnce_eachCompletesOnceWithItsOwnResponse() async throws {
        try await TestServer.run { server in
            try await withClient(.init(maxConnectionsPerHost: 16)) { client in
                // Given: 300 posts sent without a task each, 16 connections for them
                let count = 300
                let outcomes = Mutex<[Int: [Result<HTTPResponse, HTTPClientError>]]>([:])
                for index in 0..<count {
                    let payload = Array("request-\(index)".utf8)
                    client.send(HTTPRequest(method: .post, url: server.url("/echo"), body: payload)) { outcome in
                        outcomes.withLock { $0[index, default: []].append(outcome) }
                    }
                }

                // When every one has completed
                try await waitUntil { outcomes.withLock { $0.count } == count }

                // Then: once each, with its own body echoed
                let all = outcomes.withLock { $0 }
                #expect(all.values.allSatisfy { $0.count == 1 })
                for (index, results) in all {
                    let response = try #require(try? results[0].get())
                    #expect(response.status == 200 && response.bodyString == "request-\(index)")
                }
            }
        }
    }

    @Test func aRequestThatCannotBeSent_failsAtOnce_onTheCallersThread() async throws {
        try await withClient { client in
            // Given: a header value holding a line break
            let request = HTTPRequest(url: "http://127.0.0.1:9/", headers: [(name: "X-Bad", value: "a\r\nb")])
            let outcome = Mutex<Result<HTTPResponse, HTTPClientError>?>(nil)

            // When
            client.send(request) { result in outcome.withLock { $0 = result } }

            // Then: refused before `send` returned, naming the problem
            guard case .failure(let error)? = outcome.withLock({ $0 }) else {
                Issue.record("expected a failure at once")
                return
            }
            #expect(error.code == .invalidRequest)
            #expect(error.message.contains("X-Bad"))
        }
    }

    @Test func afterShutdown_aSendFailsWithShutdown() async throws {
        try await TestServer.run { server in
            let client = try CurlHTTPClient()
            await client.shutdown()
            let outcome = Mutex<Result<HTTPResponse, HTTPClientError>?>(nil)
            client.send(HTTPRequest(url: server.url("/hello"))) { result in outcome.withLock { $0 = result } }
            try await waitUntil { outcome.withLock { $0 } != nil }
            guard case .failure(let error)? = outcome.withLock({ $0 }) else {
                Issue.record("expected a failure")
                return
            }
            #expect(error.code == .shutdown)
        }
    }
}
