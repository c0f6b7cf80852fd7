import Foundation
import PipelineCore
import StorePlugins

/// What the pipeline keeps of one Stripe event: the members its verifier needs, as
/// canonical JSON (``StoreEvidence/payload``), the rest of the event left behind.
///
/// The event itself is never trusted for money: the verifier reads the object it names back
/// from Stripe's API. Its amounts are kept to show what the event said.
public struct StripeEvent: Hashable, Sendable {
    /// The evidence kind: Stripe's events are notifications, the only evidence Stripe has
    /// (the intake hands every pushed notification on as this kind).
    public static let kind = StoreEvidence.notificationKind

    /// Stripe's id of the event (`evt_…`): the same event sent again has the same id.
    public var id: String
    /// `checkout.session.completed`, `charge.refunded`, ...
    public var type: String
    /// When Stripe made the event (its `created`).
    public var created: Date?
    /// Whether it came from live mode.
    public var livemode: Bool
    /// The id of `data.object` (`cs_…`, `ch_…`, `dp_…`); nil for the few objects that have
    /// none (a `balance.available`'s balance), which the pipeline never acts on.
    public var objectID: String?
    /// The object's other members the verifier or an operator wants: `charge`,
    /// `payment_intent`, `amount`, `amount_refunded`, `status`.
    public var details: [String: String]

    public init(
        id: String, type: String, created: Date? = nil, livemode: Bool = false, objectID: String?,
        details: [String: String] = [:]
    ) {
        self.id = id
        self.type = type
        self.created = created
        self.livemode = livemode
        self.objectID = objectID
        self.details = details
    }

    /// The members of `data.object` kept, when present.
    static let kept = ["charge", "payment_intent", "amount", "amount_refunded", "status", "payment_status"]

    /// Reads a webhook body. - Throws: a 400 ``StoreInputError`` naming the member at fault by
    /// its path in the body (`data.object.id`), as the API names every member.
    public init(body: [UInt8]) throws(StoreInputError) {
        guard let event = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .invalid("invalid_json", "the body is not a JSON object", member: nil)
        }
        let id = try StoreInput.string(event, "id", in: "", maxLength: 255)!
        let type = try StoreInput.string(event, "type", in: "", maxLength: 255)!
        guard let data = event["data"] as? [String: Any] else {
            throw .invalid("missing_field", "data must be an object", member: "data")
        }
        guard let object = data["object"] as? [String: Any] else {
            throw .invalid("missing_field", "data.object must be an object", member: "data.object")
        }
        let objectID = try StoreInput.string(object, "id", in: "data.object", required: false, maxLength: 255)
        var details: [String: String] = [:]
        for key in Self.kept {
            switch object[key] {
            // Kept and shown: a control character (NUL) is refused, as in every member the API reads.
            case let text as String where text.unicodeScalars.contains(where: Self.isControl):
                throw .invalid(
                    "invalid_field", "data.object.\(key) must not hold control characters", member: "data.object.\(key)"
                )
            case let text as String where !text.isEmpty && text.utf8.count <= 255: details[key] = text
            case let number as Int: details[key] = String(number)
            default: continue
            }
        }
        let created = (event["created"] as? Int).map { Date(timeIntervalSince1970: Double($0)) }
        self.init(
            id: id, type: type, created: created, livemode: (event["livemode"] as? Bool) ?? false, objectID: objectID,
            details: details)
    }

    /// C0 and C1 controls and DEL.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The evidence the intake stores: canonical, so the same event is the same payload.
    public var evidence: StoreEvidence {
        var members = details
        members["id"] = id
        members["type"] = type
        if let objectID { members["object_id"] = objectID }
        members["livemode"] = livemode ? "true" : "false"
        if let created { members["created"] = String(Int64(created.timeIntervalSince1970)) }
        return StoreEvidence(store: StripeStore.id, kind: Self.kind, payload: StoreInput.canonicalJSON(members))
    }

    /// The event a stored payload holds; nil when it is not one ``evidence`` wrote.
    public init?(payload: String) {
        guard var members = StoreInput.members(payload), let id = members.removeValue(forKey: "id"),
            let type = members.removeValue(forKey: "type")
        else { return nil }
        let objectID = members.removeValue(forKey: "object_id")
        let livemode = members.removeValue(forKey: "livemode") == "true"
        let created = members.removeValue(forKey: "created").flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
        self.init(id: id, type: type, created: created, livemode: livemode, objectID: objectID, details: members)
    }
}
