import GRDB
import Settlement

// The settlement engine's values, as the store keeps them in columns.

extension TransactionOutcome: DatabaseValueConvertible {}
extension LedgerKind: DatabaseValueConvertible {}
extension TransactionState: DatabaseValueConvertible {}
extension BindingPath: DatabaseValueConvertible {}
extension WebhookType: DatabaseValueConvertible {}
