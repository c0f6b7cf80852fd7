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
