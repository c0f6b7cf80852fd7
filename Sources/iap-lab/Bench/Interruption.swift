import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM cancel a benchmark's work instead of ending the process there and
/// then, so that it still stops the stages it started and removes their cgroups.
enum Interruption {
    /// What the work ended with when a signal cut it short, whatever error the cancellation
    /// surfaced as.
    struct Interrupted: Error, CustomStringConvertible {
        let signal: Int32
        var description: String { "interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM")" }
    }

    /// Runs `body` in a task of its own, which SIGINT or SIGTERM cancels; returns how it ended.
    static func cancellable<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>
    {
        let work = Task { try await body() }
        let received = Atomic<Int32>(0)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.store(number, ordering: .relaxed)
                work.cancel()
            }
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
        let signal = received.load(ordering: .relaxed)
        return signal == 0 ? result : .failure(Interrupted(signal: signal))
    }
}
