import PipelineCore

// MARK: - Each app's money stays its own

extension SettlementEngine {
    /// An event belongs to one app (``Cause/app``: the app whose credential proved it, or whose
    /// account submitted it) and moves that app's money only. A transaction or subscription
    /// another app recorded is that app's: the event changes nothing of it, and tells this
    /// app nothing of the other's accounts. Nil when the event is its app's to decide.
    static func ofAnotherApp(_ event: SettlementEvent, state: SettlementState) -> Decision? {
        guard let app = event.cause?.app, event.transaction != nil else { return nil }
        let recorded = [state.known, state.bound].compactMap { $0 }
        guard recorded.contains(where: { $0.app != app || !($0.accountID.map { owns(app, $0) } ?? true) }) else {
            return nil
        }
        return .unchanged(.ofAnotherApp)
    }

    /// Whether the stored account id `account` is the app keyed `app`'s.
    static func owns(_ app: String, _ account: String) -> Bool { AppScope.key(ofStored: account) == app }
}
