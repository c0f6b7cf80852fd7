import Broker
import Database
import Observability
import PipelineCore
import Repositories
import SettlementWriter
import Tracing

/// A batch of verdicts as spans, one pair per verdict in its own receipt's trace: a
/// consumer span for the batch's processing of its message (from the batch's start to its
/// acknowledgement, with the batch's size), and inside it a database span for the
/// settlement transaction, recording what the verdict came to. The webhooks it wrote carry
/// the settlement span's context (``Verdict/traceparent``), which their deliveries continue.
/// Nil when tracing is off.
struct SettleSpans {
    private var spans: [(process: any Span, settle: any Span)]

    /// Starts the spans and gives each verdict its settlement span's context.
    /// - Parameters:
    ///   - parts: each verdict's message, alone or out of a pack (``MessagePack``).
    ///   - messages: the batch's messages.
    static func start(
        _ parts: [MessagePart], messages: Int, verdicts: inout [Verdict], queue: String, system: DatabaseSystemName,
        enabled: Bool, startedAt: DefaultTracerClock.Instant
    ) async -> SettleSpans? {
        guard enabled, !verdicts.isEmpty else { return nil }
        let system = await system.value
        var spans: [(process: any Span, settle: any Span)] = []
        for (index, part) in parts.enumerated() {
            let process = startSpan(
                SpanName.process(queue), at: startedAt, context: TraceParent.context(part.properties.headers),
                ofKind: .consumer)
            process.attributes.messaging(
                operation: "process", destination: queue, messageID: part.properties.messageID,
                bodySize: part.body.count)
            process.attributes["messaging.batch.message_count"] = messages
            process.attributes["iap.receipt.id"] = verdicts[index].receiptID
            let settle = startSpan(SpanName.settle, context: process.context, ofKind: .client)
            settle.attributes.database(
                system: system, operation: "settle", collection: "receipts", batchSize: verdicts.count)
            settle.attributes["iap.verdict.outcome"] = verdicts[index].rawOutcome
            settle.attributes["iap.verify.attempts"] = verdicts[index].attempts
            if let reason = verdicts[index].reason { settle.attributes["iap.verdict.reason"] = reason }
            verdicts[index].traceparent = TraceParent.string(of: settle.context)
            spans.append((process, settle))
        }
        return SettleSpans(spans: spans)
    }

    /// The transaction committed (or not: nil): what each verdict did.
    func committed(_ results: [VerdictResult]?) {
        for (index, pair) in spans.enumerated() {
            guard let results, index < results.count else {
                pair.settle.setStatus(.init(code: .error, message: "not committed, requeued"))
                pair.settle.end()
                continue
            }
            pair.settle.attributes["iap.settlement.result"] = results[index].label
            switch results[index] {
            case .applied(_, let status, _), .alreadyFinal(_, let status):
                pair.settle.attributes["iap.receipt.status"] = status.rawValue
            case .notificationApplied(_, let status, _), .notificationAlreadyFinal(_, let status):
                pair.settle.attributes["iap.notification.status"] = status.rawValue
            case .invalid(_, let reason):
                pair.settle.setStatus(.init(code: .error, message: reason))
            default:
                break
            }
            pair.settle.end()
        }
    }

    /// The batch is settled with the broker (acknowledged or dead-lettered).
    func end() {
        for pair in spans { pair.process.end() }
    }
}

extension VerdictResult {
    /// As the settlement span records it.
    var label: String {
        switch self {
        case .applied: "applied"
        case .alreadyFinal: "already_final"
        case .unknownReceipt: "unknown_receipt"
        case .unknownOutcome: "unknown_outcome"
        case .invalid: "invalid"
        case .notificationApplied: "notification_applied"
        case .notificationAlreadyFinal: "notification_already_final"
        case .subscriptionCheckApplied: "subscription_check_applied"
        }
    }
}
