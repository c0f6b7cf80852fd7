import Broker
import Database
import Observability
import PipelineCore
import Repositories
import SettlementWriter
import Tracing

/// The intake's spans. The backend's request is Hummingbird's server span (it reads the
/// backend's `traceparent`); inside it, the commit of the receipt is a database span whose
/// context the row keeps; the relay's publish of that receipt is a producer span, child of
/// the commit, whose context the message carries to the validators.
struct IntakeTracing: Sendable {
    /// Read once, when the intake is built: off, every method here is one branch.
    let enabled: Bool
    let system: DatabaseSystemName

    init(database: any SQLDatabase, enabled: Bool = PipelineTracing.isEnabled) {
        self.enabled = enabled
        self.system = DatabaseSystemName(database)
    }

    /// Runs `accept` (the group commit) in the commit span, with `receipt` carrying it.
    func commit(
        _ receipt: NewReceipt, _ accept: (NewReceipt) async throws -> AcceptOutcome
    ) async throws -> AcceptOutcome {
        guard enabled else { return try await accept(receipt) }
        let system = await system.value
        return try await withSpan(SpanName.intakeCommit, ofKind: .client) { span in
            span.attributes.database(system: system, operation: "INSERT", collection: "receipts")
            span.attributes["iap.receipt.id"] = receipt.id
            span.attributes["iap.receipt.kind"] = receipt.kind.rawValue
            var traced = receipt
            traced.traceparent = TraceParent.string(of: span.context)
            let outcome = try await accept(traced)
            span.attributes["iap.intake.outcome"] = outcome.label
            return outcome
        }
    }

    /// Starts a producer span for each submission that belongs to a trace (and, tracing
    /// on, for those that start one: a notification the sweep publishes again).
    /// - Returns: the submissions, each carrying its publish span's context, and the spans
    ///   by receipt id (none when tracing is off).
    static func startPublishing(
        _ submissions: [Submission], enabled: Bool, exchange: String, routingKey: String
    ) -> (submissions: [Submission], spans: [String: any Span]) {
        guard enabled || submissions.contains(where: { $0.traceparent != nil }) else { return (submissions, [:]) }
        var traced = submissions
        var spans: [String: any Span] = [:]
        for index in traced.indices {
            let submission = traced[index]
            let span = startSpan(
                SpanName.publish(exchange), context: TraceParent.context(submission.traceparent), ofKind: .producer)
            span.attributes.messaging(
                operation: "publish", destination: exchange, routingKey: routingKey, messageID: submission.id)
            span.attributes["iap.receipt.id"] = submission.id
            traced[index].traceparent = TraceParent.string(of: span.context)
            spans[submission.id] = span
        }
        return (traced, spans)
    }

    /// Ends the publish spans once the broker answered: an error for each it did not confirm.
    static func endPublishing(_ spans: [String: any Span], failed: [(id: String, error: PublishError)]) {
        guard !spans.isEmpty else { return }
        for (id, error) in failed {
            spans[id]?.setStatus(.init(code: .error, message: error.description))
            spans[id]?.attributes["error.type"] = "\(error)"
        }
        for span in spans.values { span.end() }
    }
}

extension AcceptOutcome {
    /// As the commit span records it.
    var label: String {
        switch self {
        case .created: "created"
        case .duplicate: "duplicate"
        case .idempotencyConflict: "idempotency_conflict"
        case .invalid: "invalid"
        }
    }
}
