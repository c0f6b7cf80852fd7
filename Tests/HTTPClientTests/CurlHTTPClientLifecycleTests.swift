import Foundation
import PipelineTesting
import Testing

@testable import HTTPClient

/// Shutdown, cancellation and the end of the client's thread.
@Suite struct CurlHTTPClientLifecycleTests {
    @Test func shutdown_failsInFlightAndQueuedRequests_withShutdown() async throws {
        try await TestServer.run { server in
            // Given: two connections allowed, so of ten slow requests two reach the server
            // and eight wait inside libcurl for a connection
            let client = try CurlHTTPClient(configuration: .init(maxConnectionsPerHost: 2))
            let slow = HTTPRequest(url: server.url("/sleep?ms=20000"), timeout: .seconds(60))

            try await withThrowingTaskGroup(of: HTTPClientError?.self) { group in
                for _ in 0..<10 {
                    group.addTask { await failure { try await client.execute(slow) } }
                }
                try await waitUntil { server.sleepers.current == 2 }

                // When
                let start = ContinuousClock.now
                await client.shutdown()
                var errors: [HTTPClientError?] = []
                for try await error in group {
                    errors.append(error)
                }

                // Then: every request fails with `.shutdown`, promptly
                #expect(errors.count == 10)
                #expect(errors.allSatisfy { $0?.code == .shutdown })
                #expect(ContinuousClock.now - start < .seconds(5))
            }

            // And the client refuses new work; shutting down again returns at once
            let late = await failure { try await client.execute(HTTPRequest(url: server.url("/hello"))) }
            #expect(late?.code == .shutdown)
            await client.shutdown()
        }
    }

    @Test func cancellingTheTask_abandonsTheTransfer_andTheClientCarriesOn() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // Given: a request the server is sitting on
                let task = Task {
                    await failure {
                        try await client.execute(HTTPRequest(url: server.url("/sleep?ms=20000"), timeout: .seconds(60)))
                    }
                }
                try await waitUntil { server.sleepers.current == 1 }

                // When
                let start = ContinuousClock.now
                task.cancel()
                let error = await task.value

                // Then
                #expect(error?.code == .cancelled)
                #expect(error?.isRetryable == false)
                #expect(ContinuousClock.now - start < .seconds(5))
                let next = try await client.execute(HTTPRequest(url: server.url("/hello")))
                #expect(next.bodyString == "hello")
            }
        }
    }

    @Test func alreadyCancelledTask_failsWithCancelled_withoutSending() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // When: the task is cancelled before it calls `execute`
                let error = await Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return await failure { try await client.execute(HTTPRequest(url: server.url("/sleep?ms=20000"))) }
                }.value

                // Then
                #expect(error?.code == .cancelled)
                #expect(server.sleepers.current == 0)
            }
        }
    }

    @Test func releasingTheClient_endsItsThread() async throws {
        // Given: a client that has done some work
        weak var loop: CurlMultiLoop?
        try await TestServer.run { server in
            let client = try CurlHTTPClient()
            loop = client.lanes[0]
            _ = try await client.execute(HTTPRequest(url: server.url("/hello")))
            // Its thread is named where `top -H` and `perf` show it
            #expect(threadCount(named: "iap-curl-multi") >= 1)
        }

        // When the last reference goes (above), without `shutdown()`
        // Then the thread ends, releasing the loop it ran
        try await waitUntil { loop == nil }
    }

    @Test func badConfiguration_throwsFromInit() {
        let configurations: [CurlHTTPClient.Configuration] = [
            .init(maxConnections: 0),
            .init(maxConnectionsPerHost: 0),
            .init(timeout: .zero),
            .init(caFile: "/nonexistent/ca.pem"),
        ]
        for configuration in configurations {
            #expect {
                _ = try CurlHTTPClient(configuration: configuration)
            } throws: { error in
                (error as? HTTPClientError)?.code == .invalidConfiguration
            }
        }
    }
}
