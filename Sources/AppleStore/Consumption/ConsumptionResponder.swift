import AppStore
import Database
import Foundation
import Logging
import Observability
import PipelineCore
import Repositories
import Settlement
import SettlementWriter

/// Answers Apple's `CONSUMPTION_REQUEST`s with Send Consumption Information (v2), from what
/// the ledger knows, and only for players who consented.
///
/// Apple asks when a customer requests a refund and waits 12 hours for an answer. Each
/// request the fulfiller applied is answered once: ``ConsumptionAnswer`` decides from the
/// ledger's facts (whether the coins were spent, the account's tenure, the consent the
/// backend recorded), this sends it, and the store records what was sent, or why not. A
/// failed call is tried again at the next pass, up to ``maxAttempts``, within the 12 hours.
public struct ConsumptionResponder: Sendable {
    let api: AppStoreServerAPIClient
    let store: ConsumptionRepository
    /// Whether answers carry a refund preference (`GRANT_FULL`, `GRANT_PRORATED`, `DECLINE`).
    let prefers: Bool
    /// Whose requests it answers: its app's accounts' (another app's are answered with that
    /// app's App Store key).
    let app: AppScope
    let logger: Logger
    static let deadline: TimeInterval = 12 * 3_600
    static let maxAttempts = 5

    public init(
        api: AppStoreServerAPIClient, database: any SQLDatabase, prefers: Bool, app: AppScope = .single,
        logger: Logger
    ) {
        self.api = api
        self.store = ConsumptionRepository(database)
        self.prefers = prefers
        self.app = app
        self.logger = logger
    }

    /// Answers every pending request; returns what it recorded.
    public func answerPending(now: @Sendable () -> Date = { Date() }) async throws -> [ConsumptionAnswerRecord] {
        let pending = try await store.pending(
            since: now().addingTimeInterval(-Self.deadline), maxAttempts: Self.maxAttempts, limit: 100, app: app)
        var recorded: [ConsumptionAnswerRecord] = []
        for request in pending {
            guard let transactionID = request.transactionID else { continue }
            let facts = try await store.facts(for: request)
            var record = ConsumptionAnswerRecord(
                notificationID: request.notificationID, transactionID: transactionID, accountID: request.accountID,
                status: .withheld)
            switch ConsumptionAnswer.decide(facts, now: now(), prefers: prefers) {
            case .withhold(let reason):
                record.reason = reason
            case .send(let answer):
                record.tenureDays = answer.tenureDays
                let information = ConsumptionInformation(
                    customerConsented: true, deliveryStatus: answer.deliveryStatus.rawValue,
                    consumptionPercentage: answer.consumptionPercentage,
                    refundPreference: answer.refundPreference?.rawValue)
                record.body = Self.json(information)
                record.attempts = (try await store.answer(notificationID: request.notificationID)?.attempts ?? 0) + 1
                do {
                    try await api.sendConsumptionInformation(
                        transactionID: transactionID, information,
                        in: request.environment == "Sandbox" ? .sandbox : .production)
                    record.status = .sent
                    record.appleStatus = 202
                } catch {
                    record.status = .failed
                    record.appleStatus = error.status
                    record.reason = "\(error)"
                }
            }
            try await store.record(record, now: now())
            PipelineMetrics.consumptionAnswers(record.status.rawValue).increment()
            logger.log(
                level: record.status == .failed ? .warning : .info, "consumption request answered",
                metadata: [
                    "notification_id": "\(record.notificationID)", "status": "\(record.status.rawValue)",
                    "reason": "\(record.reason ?? "none")",
                ])
            recorded.append(record)
        }
        return recorded
    }

    static func json(_ information: ConsumptionInformation) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(information)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
