import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter
import StorePlugins

/// A `POST /v1/receipts` body, checked field by field. Pure: no I/O.
///
/// Its evidence is one member of one configured store (Apple's `receipt_data` or
/// `signed_transaction`, `google_play`, `huawei`), checked by that store's plug-in.
struct ReceiptRequest: Equatable, Sendable {
    static let fields: Set<String> = ["account_id", "order_id", "product_id"]

    let accountID: String
    let kind: ReceiptKind
    let payload: String
    let orderID: String?
    let productID: String?

    /// Parses and validates a JSON body; `stores` are the stores configured here, whose
    /// members carry the evidence.
    /// - Throws: ``APIError`` (400) naming the field at fault.
    init(json: some Collection<UInt8>, stores: StoreRegistry) throws(APIError) {
        // A store built in but not configured here is named as such, not as an unknown field
        // (a configured store's id is no member unless it is its member).
        let off = stores.unconfiguredIDs
        let object = try JSONFields.object(json) { key in
            Self.fields.contains(key) || stores.receiptMembers[key] != nil || off.contains(key)
        }
        // Null is the same as absent, for a store that is off too.
        if let store = off.first(where: { object[$0] != nil && !(object[$0] is NSNull) }) {
            throw APIError.invalid(
                "store_not_configured", "\(store) is not configured on this intake (docs/\(store).md)", field: store)
        }
        accountID = try JSONFields.identifier(object, "account_id", required: true)!
        let evidence = try Self.evidence(object, stores: stores)
        (kind, payload) = (.store(evidence), evidence.payload)
        orderID = try JSONFields.identifier(object, "order_id", required: false)
        productID = try JSONFields.productID(object, required: false)
    }

    /// The one store's evidence the body carries, as its plug-in reads it.
    private static func evidence(_ object: [String: Any], stores: StoreRegistry) throws(APIError) -> StoreEvidence {
        let order = stores.memberOrder
        let present = order.filter { object[$0] != nil && !(object[$0] is NSNull) }
        guard let member = present.first else {
            guard let first = order.first else {
                throw APIError.invalid("missing_receipt", "no store takes receipts on this intake")
            }
            throw APIError.invalid(
                "missing_receipt", "send one of \(order.joined(separator: " or "))", field: first)
        }
        guard present.count == 1 else {
            throw APIError.invalid(
                "ambiguous_receipt", "send only one of \(present.joined(separator: " and "))", field: present[1])
        }
        do {
            return try stores.receiptMembers[member]!.receiptEvidence(object[member]!, member: member)
        } catch {
            throw APIError.invalid(error.code, error.message, field: error.member)
        }
    }

    /// The receipt row to commit, with the hashes that find duplicates.
    func newReceipt(id: String, idempotencyKey: String?) -> NewReceipt {
        NewReceipt.posted(
            id: id, accountID: accountID, kind: kind, payload: payload, orderID: orderID, productID: productID,
            idempotencyKey: idempotencyKey)
    }
}
