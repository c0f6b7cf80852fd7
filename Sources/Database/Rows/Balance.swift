/// A row of `balances`: how much of one currency an account holds. Only the ledger moves
/// it, in the same transaction as the ledger entry (see ``LedgerEntry``).
package struct Balance: Codable, Hashable, Sendable {
    package var accountID: String
    package var currency: String
    package var amount: Int

    package init(accountID: String, currency: String, amount: Int) {
        self.accountID = accountID
        self.currency = currency
        self.amount = amount
    }

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case currency, amount
    }
}
