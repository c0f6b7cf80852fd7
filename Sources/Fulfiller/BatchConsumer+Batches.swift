import Broker
import PipelineCore
import ServiceLifecycle

extension BatchConsumer {
    /// Hands `body` batch after batch until the consumer ends, which graceful shutdown or
    /// cancellation asks for; the batch in hand is finished first.
    func eachBatch(max: Int, linger: Duration = .zero, _ body: ([Delivery]) async -> Void) async throws {
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                while let batch = try await deliveries.next(max: max, linger: linger) { await body(batch) }
            } onCancel: {
                cancel()
                // The connection may be gone already, and its cancel-ok with it.
                deliveries.finish()
            }
        } onGracefulShutdown: {
            cancel()
        }
    }
}
