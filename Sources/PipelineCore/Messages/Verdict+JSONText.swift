// Verdicts as `JSONText` writes them: the same bytes as their `Encodable` conformances through
// `WireCoding.encoder()` (keys sorted, a missing optional left out), without `JSONEncoder`'s
// cost in the validator, which writes one per receipt. `VerdictJSONTests` holds the two to
// each other.

extension Verdict: JSONTextValue {
    /// The body of a fulfil-queue message.
    public var wireJSON: [UInt8] { jsonBytes(capacity: 512) }

    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("account_id", accountID)
            json.member("attempts", attempts)
            json.member("decided_at", decidedAt)
            json.member("environment", ifPresent: environment)
            json.member("notification", ifPresent: notification)
            json.member("order_id", ifPresent: orderID)
            json.member("outcome", rawOutcome)
            json.member("product_id", ifPresent: productID)
            json.member("reason", ifPresent: reason)
            json.member("receipt_id", receiptID)
            json.member("transactions", transactions)
        }
    }
}

extension VerifiedTransaction: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("app_account_token", ifPresent: appAccountToken)
            json.member("app_transaction_id", ifPresent: appTransactionID)
            json.member("billing_plan_type", ifPresent: billingPlanType)
            json.member("cancellation_date", ifPresent: cancellationDate)
            json.member("commitment_expires_date", ifPresent: commitmentExpiresDate)
            json.member("confirmation", ifPresent: confirmation)
            json.member("country", ifPresent: country)
            json.member("currency", ifPresent: currency)
            json.member("expires_date", ifPresent: expiresDate)
            json.member("is_upgraded", ifPresent: isUpgraded)
            json.member("linked_original_transaction_id", ifPresent: linkedOriginalTransactionID)
            json.member("offer_id", ifPresent: offerID)
            json.member("offer_period", ifPresent: offerPeriod)
            json.member("offer_type", ifPresent: offerType)
            json.member("original_transaction_id", originalTransactionID)
            json.member("ownership_type", ifPresent: ownershipType)
            json.member("price_micros", ifPresent: priceMicros.map(Int.init))
            json.member("product_id", productID)
            json.member("product_type", ifPresent: productType)
            json.member("purchase_date", ifPresent: purchaseDate)
            json.member("quantity", quantity)
            json.member("refunded_quantity", ifPresent: refundedQuantity)
            json.member("revocation_percentage", ifPresent: revocationPercentage)
            json.member("store_account_id", ifPresent: storeAccountID)
            json.member("tax_micros", ifPresent: taxMicros.map(Int.init))
            json.member("transaction_id", transactionID)
        }
    }
}

extension StoreNotification: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("environment", ifPresent: environment)
            json.member("grace_period_expires_date", ifPresent: gracePeriodExpiresDate)
            json.member("notification_uuid", notificationUUID)
            json.member("signed_date", ifPresent: signedDate)
            json.member("subtype", ifPresent: subtype)
            json.member("transaction", ifPresent: transaction)
            json.member("type", rawType)
        }
    }
}
