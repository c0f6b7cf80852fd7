import Database
import PipelineCore

extension PendingWrites {
    /// Gives each webhook the trace context of the verdict that caused it (by the
    /// notification or receipt it names), so that its deliveries join that verdict's trace.
    /// Nothing to do when tracing is off: no verdict carries one.
    mutating func trace(_ verdicts: [Verdict]) {
        guard !outbox.isEmpty, verdicts.contains(where: { $0.traceparent != nil }) else { return }
        var byID: [String: String] = [:]
        for verdict in verdicts {
            if let traceparent = verdict.traceparent { byID[verdict.receiptID] = traceparent }
        }
        for index in outbox.indices {
            let entry = outbox[index]
            outbox[index].traceparent =
                (entry.notificationID.flatMap { byID[$0] }) ?? entry.receiptID.flatMap { byID[$0] }
        }
    }
}
