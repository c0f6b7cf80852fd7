import HTTPClient
import Testing

/// Runs `body` with a fresh client and shuts the client down afterwards, even if `body` throws.
func withClient<T>(
    _ configuration: CurlHTTPClient.Configuration = .init(),
    _ body: (CurlHTTPClient) async throws -> T
) async throws -> T {
    let client = try CurlHTTPClient(configuration: configuration)
    do {
        let value = try await body(client)
        await client.shutdown()
        return value
    } catch {
        await client.shutdown()
        throw error
    }
}

/// The ``HTTPClientError`` `work` fails with, or `nil` (and a recorded issue) if it succeeds
/// or fails otherwise.
func failure(
    sourceLocation: SourceLocation = #_sourceLocation,
    of work: () async throws -> HTTPResponse
) async -> HTTPClientError? {
    do {
        let response = try await work()
        Issue.record("expected an error, got status \(response.status)", sourceLocation: sourceLocation)
        return nil
    } catch let error as HTTPClientError {
        return error
    } catch {
        Issue.record("expected an HTTPClientError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Waits until `condition` holds, checking every 10 ms, or throws after `limit`.
///
/// For waiting on the server to have received something: the limit is generous, since
/// reaching it means the test has failed, not that the machine is slow.
func waitUntil(_ limit: Duration = .seconds(10), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            throw WaitTimedOut(limit: limit)
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct WaitTimedOut: Error {
    let limit: Duration
}
