import Foundation

/// The body of `POST /stub/receipts`: a ``StubReceipt`` where everything a person would
/// rather not type may be left out.
///
/// ```sh
/// curl -s localhost:8090/stub/receipts -d '{"transactions": [{"product_id": "com.example.coins100"}]}'
/// ```
///
/// Left out: `bundle_id` is the store's ``StubStoreConfiguration/bundleID``, `environment` is
/// `Production`, `transaction_id` is a fresh 16-digit id, `original_transaction_id` is the
/// transaction id, `quantity` is 1, `purchase_date` and `created_at` are now.
struct StubReceiptDraft: Decodable, Sendable {
    var bundleID: String?
    var applicationVersion: String?
    var environment: StubReceipt.Environment?
    var transactions: [Transaction]?
    var createdAt: Date?
    var failFirst: Int?
    var transientUntil: Date?
    var transientStatus: Int?
    /// `stub` (the default: the stub's own signed JSON) or `pkcs7` (signed like Apple's receipts).
    var format: Format?

    enum Format: String, Decodable, Sendable {
        case stub
        case pkcs7
    }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bundle_id"
        case applicationVersion = "application_version"
        case environment
        case transactions
        case createdAt = "created_at"
        case failFirst = "fail_first"
        case transientUntil = "transient_until"
        case transientStatus = "transient_status"
        case format
    }

    struct Transaction: Decodable, Sendable {
        var transactionID: String?
        var originalTransactionID: String?
        var productID: String
        var quantity: Int?
        var purchaseDate: Date?
        var expiresDate: Date?
        var cancellationDate: Date?
        var cancellationReason: String?
        var webOrderLineItemID: String?
        var appAccountToken: String?

        enum CodingKeys: String, CodingKey {
            case transactionID = "transaction_id"
            case originalTransactionID = "original_transaction_id"
            case productID = "product_id"
            case quantity
            case purchaseDate = "purchase_date"
            case expiresDate = "expires_date"
            case cancellationDate = "cancellation_date"
            case cancellationReason = "cancellation_reason"
            case webOrderLineItemID = "web_order_line_item_id"
            case appAccountToken = "app_account_token"
        }
    }

    /// Refuses numbers no receipt holds: a `quantity` outside 1-1,000,000, a `fail_first`
    /// outside 0-1,000,000, a `transient_status` outside 1-99,999.
    func check() throws(StubFieldError) {
        func within(_ value: Int?, _ member: String, _ range: ClosedRange<Int>) throws(StubFieldError) {
            guard let value, !range.contains(value) else { return }
            let name = member.split(separator: ".").last.map(String.init) ?? member
            throw StubFieldError(
                code: "invalid_\(name)", member: member,
                message: "\(member) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        for (index, transaction) in (transactions ?? []).enumerated() {
            try within(transaction.quantity, "transactions[\(index)].quantity", StubField.quantities)
        }
        try within(failFirst, "fail_first", 0...1_000_000)
        try within(transientStatus, "transient_status", 1...99_999)
    }

    /// The receipt, with what was left out filled in.
    func receipt(bundleID defaultBundleID: String, now: Date, newTransactionID: () -> String) -> StubReceipt {
        StubReceipt(
            bundleID: bundleID ?? defaultBundleID,
            applicationVersion: applicationVersion ?? "1",
            environment: environment ?? .production,
            transactions: (transactions ?? []).map { draft in
                let id = draft.transactionID ?? newTransactionID()
                return StubReceipt.Transaction(
                    transactionID: id, originalTransactionID: draft.originalTransactionID ?? id,
                    productID: draft.productID, quantity: draft.quantity ?? 1, purchaseDate: draft.purchaseDate ?? now,
                    expiresDate: draft.expiresDate, cancellationDate: draft.cancellationDate,
                    cancellationReason: draft.cancellationReason, webOrderLineItemID: draft.webOrderLineItemID,
                    appAccountToken: draft.appAccountToken)
            },
            createdAt: createdAt ?? now,
            failFirst: failFirst,
            transientUntil: transientUntil,
            transientStatus: transientStatus
        )
    }
}

/// The answer of `POST /stub/receipts`.
struct StubMintResponse: Encodable, Sendable {
    /// What to send as `receipt_data` to the intake (or `receipt-data` to `verifyReceipt`).
    var receiptData: String
    /// The receipt it holds, with the defaults filled in.
    var receipt: StubReceipt

    enum CodingKeys: String, CodingKey {
        case receiptData = "receipt_data"
        case receipt
    }
}
