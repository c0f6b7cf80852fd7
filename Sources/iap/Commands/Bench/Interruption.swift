import Dispatch
import Foundation

/// SIGINT and SIGTERM cancel a benchmark's work instead of ending the process there and
/// then, so that it still stops the stages it started and removes their cgroups.
enum Interruption {
    /// Runs `body` in a task of its own, which SIGINT or SIGTERM cancels; returns how it ended.
    static func cancellable<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>
    {
        let work = Task { try await body() }
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { work.cancel() }
            // Once registered, the signal no longer ends the process: wait for that, as
            // ServiceLifecycle does, so that an early Ctrl-C is not lost.
            await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
                source.setRegistrationHandler { registered.resume() }
                source.resume()
            }
            sources.append(source)
        }
        let result = await work.result
        for source in sources { source.cancel() }
        return result
    }
}
