/// What a refund does when it would take a balance below zero: the player spent the
/// coins Apple has now paid back. `"negative_balance"` in the catalog; `allow` by default.
///
/// Either way the refund's whole debit is in the ledger, and the account is flagged for
/// the backend and the operators to decide what the player owes.
public enum NegativeBalancePolicy: String, Codable, Hashable, Sendable, CaseIterable {
    /// The balance goes below zero: the player owes the difference, and buys it back
    /// before spending again. The account is flagged `negative_balance`.
    case allow
    /// The balance stops at zero (or where it was, if already below): what the refund
    /// could not take is written off, a `write_off` entry beside the debit, and the
    /// account is flagged `refund_shortfall`.
    case clamp
}
