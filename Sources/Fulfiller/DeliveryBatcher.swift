import Broker
import PipelineCore

extension BatchBuffer where Element == Delivery {
    /// Reads `consumer` into the buffer until it ends; run it beside the batch loop.
    func pump(_ consumer: Consumer) async {
        do {
            for try await delivery in consumer { append(delivery) }
            finish()
        } catch {
            finish(throwing: error)
        }
    }
}
