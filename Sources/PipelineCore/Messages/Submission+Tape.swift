import Foundation

/// In the validator `JSONDecoder` spent 5-6 % of the process on submissions (`Submission.decode`).
extension Submission: TapeDecodable {
    public init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        let id = try value.string("receipt_id")
        let accountID = try value.string("account_id")
        let app = try value.optionalString("app")
        let orderID = try value.optionalString("order_id")
        let productID = try value.optionalString("product_id")
        let submittedAt = try value.date("submitted_at")
        let apple: StoreEvidence? =
            switch (
                try value.optionalString("receipt_data"), try value.optionalString("signed_transaction"),
                try value.optionalString("signed_payload"), try value.optionalString("subscription_check")
            ) {
            case (let latest, nil, nil, let original?): .appleCheck(original: original, latestReceipt: latest)
            case (let receipt?, nil, nil, nil): .apple(.receipt, receipt)
            case (nil, let signed?, nil, nil): .apple(.signedTransaction, signed)
            case (nil, nil, let payload?, nil): .apple(.notification, payload)
            case (nil, nil, nil, nil): nil
            default: throw JSONTape.Unsure()
            }
        let found = [
            apple,
            try value.optionalObject("store_evidence") { v throws(JSONTape.Unsure) in
                StoreEvidence(
                    store: try v.string("store"), kind: try v.string("kind"), payload: try v.string("payload"))
            },
            try value.optionalObject("google_play") { v throws(JSONTape.Unsure) in
                StoreEvidence.builtIn(
                    GooglePlayPurchase(
                        packageName: try v.string("package_name"), productID: try v.string("product_id"),
                        purchaseToken: try v.string("purchase_token")))
            },
            try value.optionalObject("google_notice") { v throws(JSONTape.Unsure) in
                StoreEvidence.builtIn(try GoogleNotice(v))
            },
        ].compactMap { $0 }
        guard found.count == 1 else { throw JSONTape.Unsure() }
        self.init(
            id: id, accountID: accountID, evidence: .store(found[0]), orderID: orderID, productID: productID,
            submittedAt: submittedAt)
        self.app = app
    }
}

extension GoogleNotice {
    init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        guard let kind = Kind(rawValue: try value.string("kind")) else { throw JSONTape.Unsure() }
        self.init(
            messageID: try value.string("message_id"), packageName: try value.string("package_name"),
            eventTime: try value.optionalDate("event_time"), kind: kind,
            notificationType: try value.optionalInt("notification_type"),
            purchaseToken: try value.optionalString("purchase_token"),
            productID: try value.optionalString("product_id"),
            orderID: try value.optionalString("order_id"), refundType: try value.optionalInt("refund_type"),
            pendingRefundToken: try value.optionalString("pending_refund_token"))
    }
}
