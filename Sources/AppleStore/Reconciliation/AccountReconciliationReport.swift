import AppStore
import Foundation

/// One of Apple's listed transactions that is not as it should be here.
public struct AccountFinding: Hashable, Sendable, Encodable {
    public enum Reason: String, Hashable, Sendable, Encodable {
        /// The account's (its token, or a subscription it owns) and never recorded here.
        case notRecorded = "not_recorded"
        /// Refunded or revoked at Apple, still credited here.
        case revokedAtApple = "revoked_at_apple"
        /// Carries an app account token this account never handed out.
        case anotherAccountsToken = "another_accounts_token"
        /// No token and no subscription of the account's: the same Apple account may play
        /// under another of our accounts, so it is not credited to this one.
        case noTie = "no_tie_to_account"

        /// Whether it is fed for the account.
        public var isTheAccounts: Bool { self == .notRecorded || self == .revokedAtApple }
    }

    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String?
    public var reason: Reason
    /// The receipt it was posted as (nil on a dry run, or when not the account's).
    public var receiptID: String?

    init(_ peek: TransactionPeek, _ reason: Reason) {
        transactionID = peek.transactionID
        originalTransactionID = peek.originalTransactionID
        productID = peek.productID
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case reason
        case receiptID = "receipt_id"
    }
}

/// What reconciling one account with Apple's Transaction History found and did.
public struct AccountReconciliationReport: Hashable, Sendable, Encodable {
    public var accountID: String
    public var dryRun: Bool
    /// The transaction ids Apple's history was asked by (one per Apple account found).
    public var asked: [String] = []
    /// Transactions Apple listed.
    public var examined = 0
    /// Listed transactions whose signed data could not be read.
    public var unreadable = 0
    /// The account's, and not as they should be here: fed unless a dry run.
    public var missing: [AccountFinding] = []
    /// Listed, not recorded here, and not provably the account's: reported only.
    public var unattributed: [AccountFinding] = []
    /// Stored now as receipts of the account, for the relay to publish.
    public var fed = 0
    /// Why it stopped short, if it did (what was fed before stays fed).
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case dryRun = "dry_run"
        case asked, examined, unreadable, missing, unattributed, fed, error
    }
}
