import Logging
import ServiceLifecycle

/// A service (a test's HTTP server) running until ``stop()``, which shuts it down the way
/// SIGTERM would. Cancelling a Hummingbird server instead can crash the process on a
/// connection it accepted but had not yet served (swift-nio issue 3481): the writer of
/// that connection is dropped unfinished, which NIO traps on.
public final class RunningService: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public init(_ service: some Service, logger: Logger = Logger(label: "test-service")) {
        let group = ServiceGroup(
            configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        self.group = group
        task = Task { try await group.run() }
    }

    /// Shuts the service down gracefully and waits until it stopped.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
