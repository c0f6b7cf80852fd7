import Foundation
import PipelineCore
import Store
import StorePlugins

/// A `POST /v1/receipts` body, checked field by field. Pure: no I/O.
struct ReceiptRequest: Equatable, Sendable {
    static let fields: Set<String> = [
        "account_id", "receipt_data", "signed_transaction", "order_id", "product_id",
    ]

    let accountID: String
    let kind: ReceiptKind
    let payload: String
    let orderID: String?
    let productID: String?

    /// Parses and validates a JSON body; `stores` adds the members of the plug-in stores
    /// configured here (`google_play`, `huawei`), each checked by its store.
    /// - Throws: ``APIError`` (400) naming the field at fault.
    init(json: some Collection<UInt8>, stores: StoreRegistry = .none) throws(APIError) {
        let members = stores.receiptMembers
        // A store built in but not configured here is named as such, not as an unknown field
        // (a configured store's id is no member unless it is its member).
        let off = Set(stores.knownIDs).subtracting(members.keys)
            .subtracting(members.values.map { $0.id })
        let object = try JSONFields.object(json, allowed: Self.fields.union(members.keys).union(off))
        if let store = off.sorted().first(where: { object[$0] != nil }) {
            throw APIError.invalid(
                "store_not_configured", "\(store) is not configured on this intake (docs/\(store).md)", field: store)
        }
        accountID = try JSONFields.identifier(object, "account_id", required: true)!
        (kind, payload) = try Self.evidence(object, members: members)
        orderID = try JSONFields.identifier(object, "order_id", required: false)
        productID = try JSONFields.productID(object, required: false)
    }

    /// The one evidence the body carries, as the kind and payload to store.
    private static func evidence(_ object: [String: Any], members: [String: any StorePlugin]) throws(APIError) -> (
        ReceiptKind, String
    ) {
        let plugged = members.keys.sorted().filter { object[$0] != nil && !(object[$0] is NSNull) }
        if let member = plugged.first {
            let builtIn = ["receipt_data", "signed_transaction"].filter { object[$0] != nil && !(object[$0] is NSNull) }
            guard plugged.count == 1, builtIn.isEmpty else {
                let others = (builtIn + plugged).filter { $0 != member }.joined(separator: ", ")
                throw APIError.invalid(
                    "ambiguous_receipt", "send only one of \(member) and \(others)", field: member)
            }
            do {
                let evidence = try members[member]!.receiptEvidence(object[member]!)
                return (.store(evidence), evidence.payload)
            } catch {
                throw APIError.invalid(error.code, error.message, field: error.member)
            }
        }
        let receiptData = try JSONFields.string(object, "receipt_data")
        let signedTransaction = try JSONFields.string(object, "signed_transaction")
        switch (receiptData, signedTransaction) {
        case (let data?, nil):
            guard Self.isBase64(data) else {
                throw APIError.invalid("invalid_receipt_data", "receipt_data must be base64", field: "receipt_data")
            }
            return (.legacy, data)
        case (nil, let jws?):
            guard Self.isCompactJWS(jws) else {
                throw APIError.invalid(
                    "invalid_signed_transaction", "signed_transaction must be a compact JWS (three base64url parts)",
                    field: "signed_transaction")
            }
            return (.storekit2, jws)
        case (nil, nil):
            let others = members.keys.sorted().map { " or \($0)" }.joined()
            throw APIError.invalid(
                "missing_receipt", "send one of receipt_data or signed_transaction\(others)", field: "receipt_data")
        case (_?, _?):
            throw APIError.invalid(
                "ambiguous_receipt", "send only one of receipt_data and signed_transaction", field: "signed_transaction"
            )
        }
    }

    /// The receipt row to commit, with the hashes that find duplicates.
    func newReceipt(id: String, idempotencyKey: String?) -> NewReceipt {
        NewReceipt.posted(
            id: id, accountID: accountID, kind: kind, payload: payload, orderID: orderID, productID: productID,
            idempotencyKey: idempotencyKey)
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
}
