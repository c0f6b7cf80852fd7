import AppStore
import Database
import Foundation
import Logging
import PipelineCore
import Repositories
import SettlementWriter

/// Compares one account's Apple purchases with Apple's Transaction History (v2), and feeds
/// in what we never recorded or never took back.
///
/// Apple lists a customer's transactions by any one of their transaction ids, so the
/// account's own recorded transactions are the keys: one is asked, and any of the
/// account's transactions the answer does not hold (another Apple account of the same
/// player) is asked in turn. A listed transaction is the account's when it carries one of
/// the account's app account tokens or belongs to a subscription (original transaction)
/// the account owns; one with no such tie is reported, never credited here, since the same
/// Apple account may play under other accounts of ours. What is the account's and missing
/// (never recorded, or revoked at Apple but credited here) is posted for the account as a
/// signed transaction through the intake's own path: the relay publishes it, the validator
/// verifies its signature, and the settlement engine credits or takes back once.
public struct AccountReconciler: Sendable {
    let api: AppStoreServerAPIClient
    let reconciliation: ReconciliationRepository
    let intake: IntakeRepository
    let logger: Logger
    /// History requests per run at most: one per Apple account the player used, bounded.
    static let maximumAsks = 20

    public init(api: AppStoreServerAPIClient, database: any SQLDatabase, logger: Logger) {
        self.api = api
        self.reconciliation = ReconciliationRepository(database)
        self.intake = IntakeRepository(database)
        self.logger = logger
    }

    /// One account, compared and (unless `dryRun`) fed.
    public func run(_ accountID: String, dryRun: Bool, now: @Sendable () -> Date = { Date() }) async
        -> AccountReconciliationReport
    {
        var report = AccountReconciliationReport(accountID: accountID, dryRun: dryRun)
        do {
            let side = try await reconciliation.appleSide(of: accountID)
            guard side.exists else { throw AccountReconciliationError.unknownAccount(accountID) }
            let listed = try await history(covering: side.transactions, report: &report)
            report.examined = listed.count
            for (peek, signed) in listed {
                guard let finding = Self.judge(peek, side: side) else { continue }
                try await record(finding, signed: signed, accountID: accountID, into: &report, now: now)
            }
        } catch {
            report.error = "\(error)"
        }
        logger.log(
            level: report.error != nil ? .error : report.missing.isEmpty ? .info : .warning,
            "account reconciled with Apple's Transaction History",
            metadata: [
                "account": "\(accountID)", "examined": "\(report.examined)", "missing": "\(report.missing.count)",
                "unattributed": "\(report.unattributed.count)", "fed": "\(report.fed)", "dry_run": "\(dryRun)",
                "error": "\(report.error ?? "none")",
            ])
        return report
    }

    /// Every transaction Apple lists for the Apple accounts behind `recorded`, each once.
    private func history(
        covering recorded: [ReconciliationRepository.AppleTransaction], report: inout AccountReconciliationReport
    ) async throws -> [(TransactionPeek, String)] {
        var listed: [String: (TransactionPeek, String)] = [:]
        var order: [String] = []
        for transaction in recorded where listed[transaction.transactionID] == nil {
            guard report.asked.count < Self.maximumAsks else { break }
            report.asked.append(transaction.transactionID)
            let answer = try await api.getCompleteTransactionHistory(transactionID: transaction.transactionID)
            for signed in answer.body.signedTransactions ?? [] {
                guard let peek = TransactionPeek(signed) else {
                    report.unreadable += 1
                    continue
                }
                if listed.updateValue((peek, signed), forKey: peek.transactionID) == nil {
                    order.append(peek.transactionID)
                }
            }
        }
        return order.compactMap { listed[$0] }
    }

    /// What a listed transaction is to the account: nothing to do (nil), missing, or not
    /// provably the account's.
    static func judge(_ peek: TransactionPeek, side: ReconciliationRepository.AccountSide) -> AccountFinding? {
        let recorded = side.transactions.first { $0.transactionID == peek.transactionID }
        if let recorded {
            guard peek.isRevoked, recorded.state == "credited" else { return nil }
            return AccountFinding(peek, .revokedAtApple)
        }
        if let token = peek.appAccountToken {
            return side.tokens.contains(token)
                ? AccountFinding(peek, .notRecorded) : AccountFinding(peek, .anotherAccountsToken)
        }
        if side.transactions.contains(where: { $0.originalTransactionID == peek.originalTransactionID }) {
            return AccountFinding(peek, .notRecorded)
        }
        return AccountFinding(peek, .noTie)
    }

    private func record(
        _ finding: AccountFinding, signed: String, accountID: String, into report: inout AccountReconciliationReport,
        now: @Sendable () -> Date
    ) async throws {
        var finding = finding
        guard finding.reason.isTheAccounts else {
            report.unattributed.append(finding)
            return
        }
        if !report.dryRun {
            let receipt = NewReceipt.posted(
                id: TimeOrderedID.make(), accountID: accountID, kind: .storekit2, payload: signed,
                productID: finding.productID)
            switch try await intake.accept([receipt], now: now()).first {
            case .created(let summary):
                finding.receiptID = summary.id
                report.fed += 1
            case .duplicate(let summary): finding.receiptID = summary.id
            case .invalid(let reason): throw AccountReconciliationError.refused(finding.transactionID, reason)
            case .idempotencyConflict, nil: break
            }
        }
        report.missing.append(finding)
    }
}

/// Why an account cannot be reconciled, as the operator reads it.
public enum AccountReconciliationError: Error, CustomStringConvertible {
    case unknownAccount(String)
    case refused(String, String)

    public var description: String {
        switch self {
        case .unknownAccount(let id): "no account \(id) here"
        case .refused(let transaction, let reason): "transaction \(transaction) was refused by the database: \(reason)"
        }
    }
}
