import Foundation
import PipelineCore
import Store

/// A `POST /v1/receipts` body, checked field by field. Pure: no I/O.
struct ReceiptRequest: Equatable, Sendable {
    static let fields: Set<String> = ["account_id", "receipt_data", "signed_transaction", "order_id", "product_id"]

    let accountID: String
    let kind: ReceiptKind
    let payload: String
    let orderID: String?
    let productID: String?

    /// Parses and validates a JSON body.
    /// - Throws: ``APIError`` (400) naming the field at fault.
    init(json: some Collection<UInt8>) throws(APIError) {
        let object = try JSONFields.object(json, allowed: Self.fields)
        accountID = try JSONFields.identifier(object, "account_id", required: true)!
        let receiptData = try JSONFields.string(object, "receipt_data")
        let signedTransaction = try JSONFields.string(object, "signed_transaction")
        switch (receiptData, signedTransaction) {
        case (let data?, nil):
            guard Self.isBase64(data) else {
                throw APIError.invalid("invalid_receipt_data", "receipt_data must be base64", field: "receipt_data")
            }
            kind = .legacy
            payload = data
        case (nil, let jws?):
            guard Self.isCompactJWS(jws) else {
                throw APIError.invalid(
                    "invalid_signed_transaction", "signed_transaction must be a compact JWS (three base64url parts)",
                    field: "signed_transaction")
            }
            kind = .storekit2
            payload = jws
        case (nil, nil):
            throw APIError.invalid(
                "missing_receipt", "send one of receipt_data or signed_transaction", field: "receipt_data")
        case (_?, _?):
            throw APIError.invalid(
                "ambiguous_receipt", "send only one of receipt_data and signed_transaction", field: "signed_transaction"
            )
        }
        orderID = try JSONFields.identifier(object, "order_id", required: false)
        productID = try JSONFields.string(object, "product_id").map { product throws(APIError) in
            guard (1...256).contains(product.utf8.count), product.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw APIError.invalid(
                    "invalid_product_id", "product_id must be 1-256 visible ASCII characters", field: "product_id")
            }
            return product
        }
    }

    /// The receipt row to commit, with the hashes that find duplicates.
    func newReceipt(id: String, idempotencyKey: String?) -> NewReceipt {
        NewReceipt(
            id: id, accountID: accountID, kind: kind, payload: payload,
            payloadHash: Self.sha256("\(kind.rawValue):\(payload)"), orderID: orderID, productID: productID,
            idempotencyKey: idempotencyKey,
            requestHash: Self.sha256(
                [accountID, kind.rawValue, payload, orderID ?? "", productID ?? ""].joined(separator: "\n")))
    }

    // MARK: Field rules

    private static func isBase64(_ value: String) -> Bool {
        guard !value.isEmpty, let data = Data(base64Encoded: value, options: .ignoreUnknownCharacters),
            !data.isEmpty
        else { return false }
        // `ignoreUnknownCharacters` tolerates line breaks (Apple's own encoders wrap lines) but nothing else.
        return value.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2B || byte == 0x2F || byte == 0x3D || byte == 0x0A || byte == 0x0D
        }
    }

    static func isCompactJWS(_ value: String) -> Bool {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy { byte in
                        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                            || byte == 0x2D || byte == 0x5F
                    }
            }
    }

    /// The lowercase hex SHA-256 of `text` (see ``PayloadHash``).
    static func sha256(_ text: String) -> String { PayloadHash.sha256Hex(text) }
}
