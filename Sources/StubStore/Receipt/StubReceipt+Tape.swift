import Foundation
import PipelineCore

/// `JSONDecoder` was a sixth of the stub store's CPU in count mode, which `iap-lab bench` counts in
/// the whole machine's (`StubReceipt.decode` of a signed payload).
extension StubReceipt: TapeDecodable {
    public init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        self.init(
            bundleID: try value.string("bundle_id"), applicationVersion: try value.string("application_version"),
            transactions: try value.array("transactions") { v throws(JSONTape.Unsure) in try Transaction(v) },
            createdAt: try value.date("created_at"), failFirst: try value.optionalInt("fail_first"),
            transientUntil: try value.optionalDate("transient_until"),
            transientStatus: try value.optionalInt("transient_status"))
        // Any environment's text is read, as `JSONDecoder` reads it; `environment` judges it.
        rawEnvironment = try value.string("environment")
    }
}

extension StubReceipt.Transaction {
    init(_ value: JSONTape.Value) throws(JSONTape.Unsure) {
        self.init(
            transactionID: try value.string("transaction_id"),
            originalTransactionID: try value.string("original_transaction_id"),
            productID: try value.string("product_id"), quantity: try value.int("quantity"),
            purchaseDate: try value.date("purchase_date"), expiresDate: try value.optionalDate("expires_date"),
            cancellationDate: try value.optionalDate("cancellation_date"),
            cancellationReason: try value.optionalString("cancellation_reason"),
            webOrderLineItemID: try value.optionalString("web_order_line_item_id"),
            appAccountToken: try value.optionalString("app_account_token"))
    }
}
