import Foundation
import PipelineCore
import Store
import StorePlugins

/// A `POST /v1/receipts` body, checked field by field. Pure: no I/O.
struct ReceiptRequest: Equatable, Sendable {
    static let fields: Set<String> = [
        "account_id", "receipt_data", "signed_transaction", "google_play", "order_id", "product_id",
    ]

    let accountID: String
    let kind: ReceiptKind
    let payload: String
    let orderID: String?
    let productID: String?

    /// Parses and validates a JSON body; `stores` adds the members of the plug-in stores
    /// configured here (`huawei`), each checked by its store.
    /// - Throws: ``APIError`` (400) naming the field at fault.
    init(json: some Collection<UInt8>, stores: StoreRegistry = .none) throws(APIError) {
        let members = stores.receiptMembers
        // A store built in but not configured here is named as such, not as an unknown field.
        let off = Set(stores.knownIDs).subtracting(members.keys)
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
            let builtIn = ["receipt_data", "signed_transaction", "google_play"].filter {
                object[$0] != nil && !(object[$0] is NSNull)
            }
            guard plugged.count == 1, builtIn.isEmpty else {
                throw APIError.invalid(
                    "ambiguous_receipt", "send only one of receipt_data, signed_transaction, google_play and \(member)",
                    field: member)
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
        let googlePlay = try Self.googlePlay(object)
        switch (receiptData, signedTransaction, googlePlay) {
        case (nil, nil, let purchase?):
            return (.googlePlay, purchase.canonicalJSON)
        case (_, _, _?):
            throw APIError.invalid(
                "ambiguous_receipt", "send only one of receipt_data, signed_transaction and google_play",
                field: "google_play")
        case (let data?, nil, nil):
            guard Self.isBase64(data) else {
                throw APIError.invalid("invalid_receipt_data", "receipt_data must be base64", field: "receipt_data")
            }
            return (.legacy, data)
        case (nil, let jws?, nil):
            guard Self.isCompactJWS(jws) else {
                throw APIError.invalid(
                    "invalid_signed_transaction", "signed_transaction must be a compact JWS (three base64url parts)",
                    field: "signed_transaction")
            }
            return (.storekit2, jws)
        case (nil, nil, nil):
            let others = members.keys.sorted().map { " or \($0)" }.joined()
            throw APIError.invalid(
                "missing_receipt", "send one of receipt_data, signed_transaction or google_play\(others)",
                field: "receipt_data")
        case (_?, _?, nil):
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

    /// `google_play`: `{"package_name", "product_id", "purchase_token"}`, each checked.
    private static func googlePlay(_ object: [String: Any]) throws(APIError) -> GooglePlayPurchase? {
        guard let value = object["google_play"], !(value is NSNull) else { return nil }
        guard let fields = value as? [String: Any] else {
            throw APIError.invalid("invalid_google_play", "google_play must be an object", field: "google_play")
        }
        let allowed: Set = ["package_name", "product_id", "purchase_token"]
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.invalid(
                "unknown_field", "unknown field google_play.\(unknown)", field: "google_play.\(unknown)")
        }
        func text(_ name: String, _ rule: String, _ isValid: (String) -> Bool) throws(APIError) -> String {
            guard let value = fields[name] as? String, isValid(value) else {
                throw APIError.invalid(
                    "invalid_google_play", "google_play.\(name) \(rule)", field: "google_play.\(name)")
            }
            return value
        }
        // Package names are Java-style: letters, digits and underscores, in dot-separated parts.
        let package = try text("package_name", "must be an application id such as com.example.game") { name in
            (3...255).contains(name.utf8.count) && name.contains(".")
                && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
                    part.first.map { $0.isASCII && $0.isLetter } == true
                        && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                }
        }
        let product = try text("product_id", "must be 1-256 of a-z 0-9 . _") { id in
            (1...256).contains(id.utf8.count)
                && id.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "_") }
        }
        let token = try text("purchase_token", "must be 1-4096 visible ASCII characters") { token in
            (1...4096).contains(token.utf8.count)
                && token.allSatisfy { $0.isASCII && !$0.isWhitespace && $0.asciiValue! > 32 }
        }
        return GooglePlayPurchase(packageName: package, productID: product, purchaseToken: token)
    }

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
