import PipelineCore

// The webhook bodies as `JSONText` writes them: the same bytes as their `Encodable`
// conformances through `WireCoding.encoder()` (keys sorted; `member(_:ifPresent:)` where
// the coding leaves a missing member out, `member(_:_:)` where it writes null), without
// `JSONEncoder`'s cost inside the fulfiller's transaction. `WebhookJSONTests` holds the two
// to each other.

extension Webhook {
    /// The body the outbox stores and the notifier signs: `{"account_id", "data",
    /// "notification_id", "receipt_id", "type"}`, with `accountID` as the app's backend knows
    /// the account. The events of a transaction always carry `notification_id` and
    /// `receipt_id` (null when none); the others `receipt_id` only when there is one.
    public func body(accountID: String) -> String {
        var json = JSONText()
        json.object { json in
            json.member("account_id", accountID)
            json.member("data", data)
            if type.isTransactionEvent {
                json.member("notification_id", notificationID)
                json.member("receipt_id", receiptID)
            } else {
                json.member("receipt_id", ifPresent: receiptID)
            }
            json.member("type", type.rawValue)
        }
        return json.text
    }
}

extension WebhookData: JSONTextValue {
    public func write(into json: inout JSONText) {
        switch self {
        case .credited(let data): data.write(into: &json)
        case .ended(let data): data.write(into: &json)
        case .transaction(let data): data.write(into: &json)
        case .adjusted(let data): data.write(into: &json)
        }
    }
}

extension CreditedData: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.key("balances")
            json.object { json in
                for (currency, amount) in balances.sorted(by: { $0.key < $1.key }) {
                    json.key(currency)
                    json.int(amount)
                }
            }
            json.member("order", ifPresent: order)
            json.member("transactions", transactions)
        }
    }
}

extension EndedData: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("attempts", attempts)
            json.member("reason", reason)
            json.member("transactions", ifPresent: transactions)
        }
    }
}

extension OrderEventData: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("credited_product_id", ifPresent: creditedProductID)
            json.member("mismatched", mismatched)
            json.member("order_id", orderID)
            json.member("product_id", productID)
            json.member("status", status)
        }
    }
}

extension TransactionEventData: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("amount", amount)
            json.member("balance", ifPresent: balance)
            json.member("currency", currency)
            json.member("entitlement", entitlement)
            json.member("expires_at", expiresAt)
            json.member("notification_uuid", notificationUUID)
            json.member("original_transaction_id", originalTransactionID)
            json.member("product_id", productID)
            json.member("transaction_id", transactionID)
            json.member("written_off", ifPresent: writtenOff)
        }
    }
}

extension CarriedTransaction: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("amount", ifPresent: amount)
            json.member("currency", ifPresent: currency)
            json.member("entitlement", ifPresent: entitlement)
            json.member("expires_at", ifPresent: expiresAt)
            json.member("outcome", outcome.rawValue)
            json.member("product_id", productID)
            json.member("transaction_id", transactionID)
        }
    }
}

extension AdjustmentEventData: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("adjustment_id", adjustmentID)
            json.member("amount", ifPresent: amount)
            json.member("balance", ifPresent: balance)
            json.member("currency", ifPresent: currency)
            json.member("entitlement", ifPresent: entitlement)
            json.member("expires_at", ifPresent: expiresAt)
            json.member("operator", operatorName)
            json.member("reason", reason)
            json.member("written_off", ifPresent: writtenOff)
        }
    }
}
