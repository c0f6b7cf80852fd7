import Foundation

extension Verdict {
    /// Decodes a verdict's message body as ``WireCoding/decoder()`` does (nil where it throws),
    /// first from a ``JSONTape``: in the fulfiller `JSONDecoder` spent 8-9 % of the process on
    /// verdicts. What the tape will not judge goes to `JSONDecoder`.
    public static func decode(_ body: [UInt8]) -> Verdict? {
        if let tape = JSONTape(body), let verdict = try? Verdict(tape.root) { return verdict }
        return try? WireCoding.decoder().decode(Verdict.self, from: Data(body))
    }

    init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        // Any outcome's text is read, as `JSONDecoder` reads it; `outcome` judges it later.
        let rawOutcome = try value.string("outcome")
        self.init(
            outcome: .valid, receiptID: try value.string("receipt_id"),
            accountID: try value.string("account_id"), orderID: try value.optionalString("order_id"),
            productID: try value.optionalString("product_id"), reason: try value.optionalString("reason"),
            attempts: try value.int("attempts"), environment: try value.optionalString("environment"),
            transactions: try value.array("transactions") { v throws(JSONTape.Unsure) in try VerifiedTransaction(v) },
            notification: try value.optionalObject("notification") { v throws(JSONTape.Unsure) in
                try StoreNotification(v)
            },
            decidedAt: try value.date("decided_at"))
        self.rawOutcome = rawOutcome
    }
}

extension VerifiedTransaction {
    init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        self.init(
            transactionID: try value.string("transaction_id"),
            originalTransactionID: try value.string("original_transaction_id"),
            productID: try value.string("product_id"), quantity: try value.int("quantity"),
            purchaseDate: try value.optionalDate("purchase_date"), expiresDate: try value.optionalDate("expires_date"),
            cancellationDate: try value.optionalDate("cancellation_date"),
            appAccountToken: try value.optionalString("app_account_token"),
            productType: try value.optionalString("product_type"),
            revocationPercentage: try value.optionalInt("revocation_percentage"),
            confirmation: try value.optionalString("confirmation"),
            storeAccountID: try value.optionalString("store_account_id"),
            refundedQuantity: try value.optionalInt("refunded_quantity"),
            appTransactionID: try value.optionalString("app_transaction_id"),
            offerPeriod: try value.optionalString("offer_period"),
            billingPlanType: try value.optionalString("billing_plan_type"),
            commitmentExpiresDate: try value.optionalDate("commitment_expires_date"))
    }
}

extension StoreNotification {
    init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        self.init(
            notificationUUID: try value.string("notification_uuid"), type: try value.string("type"),
            subtype: try value.optionalString("subtype"), environment: try value.optionalString("environment"),
            signedDate: try value.optionalDate("signed_date"),
            transaction: try value.optionalObject("transaction") { v throws(JSONTape.Unsure) in
                try VerifiedTransaction(v)
            },
            gracePeriodExpiresDate: try value.optionalDate("grace_period_expires_date"))
    }
}
