import Logging
import ServiceLifecycle

/// Runs an HTTP server `Service` for the length of `body`, then shuts it down gracefully
/// (open connections quiesced and closed, not abandoned), so that nothing the server holds
/// outlives the test.
///
/// ```swift
/// try await withRunningServer({ onPort in intake.application(onServerRunning: onPort) }) { port in ... }
/// ```
public func withRunningServer(
    _ make: (@escaping @Sendable (Int) async -> Void) -> any Service,
    _ body: (Int) async throws -> Void
) async throws {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let server = RunningService(make { continuation.yield($0) })
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { return await server.stop() }
    do {
        try await body(port)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
