import Foundation
import PipelineCore

/// In the validator `JSONDecoder` spent a sixth of the process on these answers
/// (`VerifyReceiptResponse.decode(body, orWith: JSONDecoder())`; `VerifyReceiptTapeTests`
/// compare the two ways on random answers).
extension VerifyReceiptResponse: TapeDecodable {
    /// - Throws: ``JSONTape/Unsure`` also where the answer has no status, which `init(from:)` refuses.
    public init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        guard value.kind == .object, let status = try value.lenientInt("status") else { throw JSONTape.Unsure() }
        self.init(
            status: VerifyReceiptStatus(rawValue: status),
            environment: try value.lenientString("environment"),
            isRetryable: try value.lenientBool("is-retryable"),
            receipt: try value.member("receipt").flatMap { value throws(JSONTape.Unsure) in try Receipt(value) },
            latestReceiptInfo: try value.objects("latest_receipt_info") { v throws(JSONTape.Unsure) in
                try Transaction(v)
            },
            latestReceipt: try value.lenientString("latest_receipt"),
            pendingRenewalInfo: try value.objects("pending_renewal_info") { v throws(JSONTape.Unsure) in
                try PendingRenewal(v)
            }
        )
    }
}

extension VerifyReceiptResponse.Receipt {
    /// nil where `init(from:)` throws: the value is not an object.
    init?(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        guard value.kind == .object else { return nil }
        self.init(
            bundleID: try value.lenientString("bundle_id"),
            applicationVersion: try value.lenientString("application_version"),
            receiptType: try value.lenientString("receipt_type"),
            inApp: try value.objects("in_app") { v throws(JSONTape.Unsure) in try VerifyReceiptResponse.Transaction(v) }
                ?? []
        )
    }
}

extension VerifyReceiptResponse.Transaction {
    init?(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        guard value.kind == .object else { return nil }
        self.init(
            transactionID: try value.lenientString("transaction_id"),
            originalTransactionID: try value.lenientString("original_transaction_id"),
            productID: try value.lenientString("product_id"),
            quantity: try value.lenientInt("quantity"),
            purchaseDate: try value.lenientMilliseconds("purchase_date_ms"),
            originalPurchaseDate: try value.lenientMilliseconds("original_purchase_date_ms"),
            expiresDate: try value.lenientMilliseconds("expires_date_ms"),
            cancellationDate: try value.lenientMilliseconds("cancellation_date_ms"),
            cancellationReason: try value.lenientString("cancellation_reason"),
            webOrderLineItemID: try value.lenientString("web_order_line_item_id"),
            appAccountToken: try value.lenientString("app_account_token"),
            isTrialPeriod: try value.lenientString("is_trial_period"),
            isUpgraded: try value.lenientString("is_upgraded")
        )
    }
}

extension VerifyReceiptResponse.PendingRenewal {
    init?(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        guard value.kind == .object else { return nil }
        self.init(
            originalTransactionID: try value.lenientString("original_transaction_id"),
            productID: try value.lenientString("product_id"),
            autoRenewProductID: try value.lenientString("auto_renew_product_id"),
            autoRenewStatus: try value.lenientString("auto_renew_status"),
            expirationIntent: try value.lenientString("expiration_intent"),
            isInBillingRetryPeriod: try value.lenientString("is_in_billing_retry_period")
        )
    }
}

/// The lenient readers of `KeyedDecodingContainer+Lenient`, value by value, from a tape.
extension JSONTape.Value {
    func lenientString(_ key: StaticString) throws(JSONTape.Unsure) -> String? {
        guard let value = try member(key) else { return nil }
        switch value.kind {
        case .string: return value.string
        case .number: return try value.integer(Int64.self).map { String($0) }
        case .bool: return value.bool.map { String($0) }
        case .null, .array, .object: return nil
        }
    }

    func lenientInt(_ key: StaticString) throws(JSONTape.Unsure) -> Int? {
        guard let value = try member(key) else { return nil }
        if let text = value.string { return Int(text.trimmedOfWhitespace) }
        return try value.integer(Int.self)
    }

    func lenientBool(_ key: StaticString) throws(JSONTape.Unsure) -> Bool? {
        guard let value = try member(key) else { return nil }
        if let bool = value.bool { return bool }
        if let number = try value.integer(Int.self) { return number != 0 }
        switch value.string?.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: return nil
        }
    }

    func lenientMilliseconds(_ key: StaticString) throws(JSONTape.Unsure) -> Date? {
        guard let value = try member(key) else { return nil }
        let milliseconds: Int64?
        if let text = value.string {
            milliseconds = Int64(text.trimmedOfWhitespace)
        } else {
            milliseconds = try value.integer(Int64.self)
        }
        return milliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// An array of objects read by `read`, or nil where `try? decodeIfPresent([T].self)` gives nil:
    /// absent, null, not an array, or an element `read` refuses.
    func objects<T>(_ key: StaticString, _ read: (JSONTape.Value) throws(JSONTape.Unsure) -> T?) throws(JSONTape.Unsure)
        -> [T]?
    {
        guard let elements = try member(key)?.elements else { return nil }
        var values: [T] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            guard let value = try read(element) else { return nil }
            values.append(value)
        }
        return values
    }
}
