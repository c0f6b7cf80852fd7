import PipelineCore

// The webhook bodies as `JSONText` writes them: the same bytes as their `Encodable`
// conformances through `WireCoding.encoder()` (keys sorted, optional members left out
// where the synthesized coding leaves them out), without `JSONEncoder`'s cost inside the
// fulfiller's transaction. `WebhookJSONTests` holds the two to each other.

extension Webhook {
    /// The body the outbox stores and the notifier signs: `{"account_id", "data",
    /// "notification_id", "receipt_id", "type"}`, with `accountID` as the app's backend knows
    /// the account. The events of a transaction always carry `notification_id` and
    /// `receipt_id` (null when none); the others `receipt_id` only when there is one.
    public func body(accountID: String) -> String {
        var json = JSONText()
        json.object { json in
            json.key("account_id")
            json.string(accountID)
            json.key("data")
            data.write(into: &json)
            if type.isTransactionEvent {
                json.key("notification_id")
                json.string(notificationID)
                json.key("receipt_id")
                json.string(receiptID)
            } else if let receiptID {
                json.key("receipt_id")
                json.string(receiptID)
            }
            json.key("type")
            json.string(type.rawValue)
        }
        return json.text
    }
}

extension WebhookData {
    public func write(into json: inout JSONText) {
        switch self {
        case .credited(let data): data.write(into: &json)
        case .ended(let data): data.write(into: &json)
        case .transaction(let data): data.write(into: &json)
        case .adjusted(let data): data.write(into: &json)
        }
    }
}

extension CreditedData {
    func write(into json: inout JSONText) {
        json.object { json in
            json.key("balances")
            json.object { json in
                for (currency, amount) in balances.sorted(by: { $0.key < $1.key }) {
                    json.key(currency)
                    json.int(amount)
                }
            }
            if let order {
                json.key("order")
                order.write(into: &json)
            }
            json.key("transactions")
            json.array { json in
                for transaction in transactions { transaction.write(into: &json) }
            }
        }
    }
}

extension EndedData {
    func write(into json: inout JSONText) {
        json.object { json in
            json.key("attempts")
            json.int(attempts)
            json.key("reason")
            json.string(reason)
            if let transactions {
                json.key("transactions")
                json.array { json in
                    for transaction in transactions { transaction.write(into: &json) }
                }
            }
        }
    }
}

extension OrderEventData {
    func write(into json: inout JSONText) {
        json.object { json in
            if let creditedProductID {
                json.key("credited_product_id")
                json.string(creditedProductID)
            }
            json.key("mismatched")
            json.bool(mismatched)
            json.key("order_id")
            json.string(orderID)
            json.key("product_id")
            json.string(productID)
            json.key("status")
            json.string(status)
        }
    }
}

extension TransactionEventData {
    func write(into json: inout JSONText) {
        json.object { json in
            json.key("amount")
            json.int(amount)
            if let balance {
                json.key("balance")
                json.int(balance)
            }
            json.key("currency")
            json.string(currency)
            json.key("entitlement")
            json.string(entitlement)
            json.key("expires_at")
            json.date(expiresAt)
            json.key("notification_uuid")
            json.string(notificationUUID)
            json.key("original_transaction_id")
            json.string(originalTransactionID)
            json.key("product_id")
            json.string(productID)
            json.key("transaction_id")
            json.string(transactionID)
            if let writtenOff {
                json.key("written_off")
                json.int(writtenOff)
            }
        }
    }
}

extension CarriedTransaction {
    func write(into json: inout JSONText) {
        json.object { json in
            if let amount {
                json.key("amount")
                json.int(amount)
            }
            if let currency {
                json.key("currency")
                json.string(currency)
            }
            if let entitlement {
                json.key("entitlement")
                json.string(entitlement)
            }
            if let expiresAt {
                json.key("expires_at")
                json.date(expiresAt)
            }
            json.key("outcome")
            json.string(outcome.rawValue)
            json.key("product_id")
            json.string(productID)
            json.key("transaction_id")
            json.string(transactionID)
        }
    }
}

extension AdjustmentEventData {
    func write(into json: inout JSONText) {
        json.object { json in
            json.key("adjustment_id")
            json.string(adjustmentID)
            if let amount {
                json.key("amount")
                json.int(amount)
            }
            if let balance {
                json.key("balance")
                json.int(balance)
            }
            if let currency {
                json.key("currency")
                json.string(currency)
            }
            if let entitlement {
                json.key("entitlement")
                json.string(entitlement)
            }
            if let expiresAt {
                json.key("expires_at")
                json.date(expiresAt)
            }
            json.key("operator")
            json.string(operatorName)
            json.key("reason")
            json.string(reason)
            if let writtenOff {
                json.key("written_off")
                json.int(writtenOff)
            }
        }
    }
}
