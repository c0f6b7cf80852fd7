/// The rule every account id obeys, wherever it comes from: a backend's request, or a store's
/// own name for the buyer (Stripe's `client_reference_id`). Never a `/`, which separates an
/// app from its account in a stored id (``AppScope``), so no source can name another app's account.
public enum AccountID {
    /// The rule as errors say it.
    public static let rule = "1-128 of A-Z a-z 0-9 . _ : -"

    /// The longest id the database keeps, an app's prefix included (`racer/…`).
    public static let maxStoredLength = 128

    /// Whether `account`, as the app keyed `appKey` names it, obeys ``rule`` and fits the
    /// database with its app's prefix.
    public static func isValid(_ account: String, appKey: String) -> Bool {
        isValid(account) && AppScope.stored(account, appKey: appKey).utf8.count <= maxStoredLength
    }

    /// Whether `id` obeys ``rule``.
    public static func isValid(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2E || byte == 0x5F || byte == 0x3A || byte == 0x2D
            }
    }
}
