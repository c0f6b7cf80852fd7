// Submissions as `JSONText` writes them: the same bytes as their `Encodable` conformance
// through `WireCoding.encoder()` (keys sorted, a missing optional left out), without
// `JSONEncoder`'s escaping of a receipt's kilobytes in the relay. `SubmissionJSONTests` holds
// the two to each other.

extension Submission: JSONTextValue {
    /// The body of a validate-queue message.
    public var wireJSON: [UInt8] { jsonBytes(capacity: evidence.storeEvidence.payload.utf8.count + 256) }

    public func write(into json: inout JSONText) {
        let evidence = evidence.storeEvidence
        let apple = evidence.builtInApple
        let google = apple == nil ? evidence.builtInGooglePlay : nil
        json.object { json in
            json.member("account_id", accountID)
            json.member("app", ifPresent: app)
            if case .notice(let notice)? = google { json.member("google_notice", notice) }
            if case .purchase(let purchase)? = google { json.member("google_play", purchase) }
            json.member("order_id", ifPresent: orderID)
            json.member("product_id", ifPresent: productID)
            switch apple {
            case .receipt(let data)?: json.member("receipt_data", data)
            case .subscriptionCheck(_, let latest)?: json.member("receipt_data", ifPresent: latest)
            default: break
            }
            json.member("receipt_id", id)
            if case .notification(let payload)? = apple { json.member("signed_payload", payload) }
            if case .signedTransaction(let jws)? = apple { json.member("signed_transaction", jws) }
            if apple == nil, google == nil { json.member("store_evidence", evidence) }
            json.member("submitted_at", submittedAt)
            if case .subscriptionCheck(let original, _)? = apple { json.member("subscription_check", original) }
        }
    }
}

extension StoreEvidence: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("kind", kind)
            json.member("payload", payload)
            json.member("store", store)
        }
    }
}

extension GooglePlayPurchase: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("package_name", packageName)
            json.member("product_id", productID)
            json.member("purchase_token", purchaseToken)
        }
    }
}

extension GoogleNotice: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("event_time", ifPresent: eventTime)
            json.member("kind", kind.rawValue)
            json.member("message_id", messageID)
            json.member("notification_type", ifPresent: notificationType)
            json.member("order_id", ifPresent: orderID)
            json.member("package_name", packageName)
            json.member("pending_refund_token", ifPresent: pendingRefundToken)
            json.member("product_id", ifPresent: productID)
            json.member("purchase_token", ifPresent: purchaseToken)
            json.member("refund_type", ifPresent: refundType)
        }
    }
}
