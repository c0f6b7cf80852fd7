import Foundation

/// In the fulfiller `JSONDecoder` spent 8-9 % of the process on verdicts (`Verdict.decode`).
extension Verdict: TapeDecodable {
    public init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
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
            commitmentExpiresDate: try value.optionalDate("commitment_expires_date"),
            linkedOriginalTransactionID: try value.optionalString("linked_original_transaction_id"),
            isUpgraded: try value.optionalBool("is_upgraded"), offerType: try value.optionalString("offer_type"),
            offerID: try value.optionalString("offer_id"), ownershipType: try value.optionalString("ownership_type"),
            priceMicros: try value.optionalInt("price_micros").map(Int64.init),
            currency: try value.optionalString("currency"), country: try value.optionalString("country"),
            taxMicros: try value.optionalInt("tax_micros").map(Int64.init))
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
