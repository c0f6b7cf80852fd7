import GRDB

/// A row of `balances`: how much of one currency an account holds. Only the ledger moves
/// it, in the same transaction as the ledger entry (see ``LedgerEntry``).
struct Balance: Codable, Hashable, Sendable {
    var accountID: String
    var currency: String
    var amount: Int

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case currency, amount
    }
}

extension Balance: FetchableRecord, PersistableRecord {
    static let databaseTableName = "balances"

    enum Columns {
        static let accountID = Column(CodingKeys.accountID)
        static let currency = Column(CodingKeys.currency)
        static let amount = Column(CodingKeys.amount)
    }
}

extension DerivableRequest<Balance> {
    func filter(accountID: String) -> Self {
        filter { $0.accountID == accountID }
    }
}
