import PipelineCore

// The stub's `verifyReceipt` answers as `JSONText` writes them: the same bytes as their
// `Encodable` conformances through `WireCoding.encoder()` (keys sorted, a missing optional
// left out). `JSONEncoder` was a quarter of the stub store's CPU under `iap-lab bench`, where the
// stub stands in for Apple on the benchmark's own machine. `StubVerifyResponseJSONTests`
// holds the two to each other.

extension StubVerifyResponse: JSONTextValue {
    func write(into json: inout JSONText) {
        json.object { json in
            json.member("environment", ifPresent: environment)
            json.member("is-retryable", ifPresent: isRetryable)
            json.member("latest_receipt", ifPresent: latestReceipt)
            json.member("latest_receipt_info", ifPresent: latestReceiptInfo)
            json.member("pending_renewal_info", ifPresent: pendingRenewalInfo)
            json.member("receipt", ifPresent: receipt)
            json.member("status", status)
        }
    }
}

extension StubVerifyResponse.Receipt: JSONTextValue {
    func write(into json: inout JSONText) {
        json.object { json in
            json.member("application_version", applicationVersion)
            json.member("bundle_id", bundleID)
            json.member("in_app", inApp)
            json.member("original_application_version", originalApplicationVersion)
            receiptCreationDate.write(into: &json, key: "receipt_creation_date")
            json.member("receipt_type", receiptType)
            requestDate.write(into: &json, key: "request_date")
        }
    }
}

extension StubVerifyResponse.InApp: JSONTextValue {
    func write(into json: inout JSONText) {
        let t = transaction
        json.object { json in
            json.member("app_account_token", ifPresent: t.appAccountToken)
            if let cancelled = t.cancellationDate {
                AppleDate(cancelled).write(into: &json, key: "cancellation_date")
                json.member("cancellation_reason", t.cancellationReason ?? "0")
            }
            if let expires = t.expiresDate {
                AppleDate(expires).write(into: &json, key: "expires_date")
            }
            json.member("in_app_ownership_type", "PURCHASED")
            if isSubscription {
                json.member("is_in_intro_offer_period", "false")
                json.member("is_trial_period", "false")
            }
            AppleDate(t.purchaseDate).write(into: &json, key: "original_purchase_date")
            json.member("original_transaction_id", t.originalTransactionID)
            json.member("product_id", t.productID)
            AppleDate(t.purchaseDate).write(into: &json, key: "purchase_date")
            json.member("quantity", String(t.quantity))
            json.member("transaction_id", t.transactionID)
            json.member("web_order_line_item_id", ifPresent: t.webOrderLineItemID)
        }
    }
}

extension StubVerifyResponse.PendingRenewal: JSONTextValue {
    func write(into json: inout JSONText) {
        json.object { json in
            json.member("auto_renew_product_id", productID)
            json.member("auto_renew_status", "1")
            json.member("original_transaction_id", originalTransactionID)
            json.member("product_id", productID)
        }
    }
}

extension AppleDate {
    /// `key`, `key_ms` and `key_pst`, adjacent as sorted keys put them.
    func write(into json: inout JSONText, key: String) {
        json.key(key)
        json.string(Self.format(date, zone: "Etc/GMT"))
        json.key(key + "_ms")
        json.string(milliseconds)
        json.key(key + "_pst")
        json.string(Self.format(date, zone: "America/Los_Angeles"))
    }
}
