import GRDB

/// The account a verified purchase credits, and the rule that chose it.
struct Binding: Hashable, Sendable {
    /// The binding rules, strongest first for a new purchase; a renewal of a subscription
    /// already bound always goes to its account (see ``PipelineDatabase/bind(_:receipt:order:_:)``).
    enum Path: String, Codable, Hashable, Sendable, DatabaseValueConvertible {
        /// The account of the order the receipt names.
        case order
        /// The account the transaction's `appAccountToken` belongs to.
        case appAccountToken = "app_account_token"
        /// The account that first bought the subscription (renewals).
        case originalTransaction = "original_transaction"
        /// The account that submitted the receipt.
        case submitter
    }

    var accountID: String
    var path: Path
}
