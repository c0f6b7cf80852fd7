import Crypto
import Foundation

// MARK: - Stripe's objects and events, as Stripe's API writes them

extension StubStripe {
    /// The JSON of the session, charge or dispute `id` names (by its prefix) in the account
    /// whose key is `account` (in any account: nil); nil when unknown there.
    func object(_ id: String, expand: Set<String> = [], account: String?) -> [String: Any]? {
        state.withLock { state in
            let sessions = state.sessions.values
            func inAccount(_ paymentIntent: String) -> Bool {
                sessions.contains { $0.paymentIntent == paymentIntent && (account == nil || $0.account == account) }
            }
            if let session = state.sessions[id], account == nil || session.account == account {
                return Self.json(session, lineItems: expand.contains("line_items"))
            }
            if let charge = state.charges[id], inAccount(charge.paymentIntent) { return Self.json(charge) }
            if let dispute = state.disputes[id], let charge = state.charges[dispute.charge],
                inAccount(charge.paymentIntent)
            {
                return Self.json(dispute, charge: charge, expanded: expand.contains("charge"))
            }
            return nil
        }
    }

    /// The sessions of the account keyed `account` that made the payment `paymentIntent` (one, or none).
    func sessions(paymentIntent: String, lineItems: Bool, account: String) -> [[String: Any]] {
        state.withLock { state in
            state.sessions.values.filter { $0.paymentIntent == paymentIntent && $0.account == account }
                .sorted { $0.id < $1.id }.map { Self.json($0, lineItems: lineItems) }
        }
    }

    static func json(_ session: Session, lineItems: Bool) -> [String: Any] {
        var object: [String: Any] = [
            "id": session.id, "object": "checkout.session", "mode": "payment", "status": "complete",
            "payment_status": session.paid ? "paid" : "unpaid", "payment_intent": session.paymentIntent,
            "client_reference_id": orNull(session.clientReferenceID), "created": session.created,
            "livemode": false, "amount_total": session.total, "currency": "usd",
            // 20 % VAT included, as Stripe Tax reports it.
            "total_details": ["amount_discount": 0, "amount_shipping": 0, "amount_tax": session.total / 6],
        ]
        if lineItems {
            let items: [[String: Any]] = session.lookupKeys.enumerated().map { index, key in
                [
                    "id": "li_\(session.id.dropFirst(3))_\(index)", "object": "item", "quantity": session.quantity,
                    "amount_total": session.total, "currency": "usd",
                    "price": [
                        "id": "price_\(key ?? "none")", "object": "price", "lookup_key": orNull(key),
                        "unit_amount": session.amount, "currency": "usd",
                    ] as [String: Any],
                ]
            }
            object["line_items"] =
                [
                    "object": "list", "data": items, "has_more": false,
                    "url": "/v1/checkout/sessions/\(session.id)/line_items",
                ] as [String: Any]
        }
        return object
    }

    static func json(_ charge: Charge) -> [String: Any] {
        [
            "id": charge.id, "object": "charge", "amount": charge.amount, "amount_refunded": charge.amountRefunded,
            "refunded": charge.amountRefunded == charge.amount, "payment_intent": charge.paymentIntent,
            "created": charge.created, "livemode": false, "currency": "usd", "paid": true, "status": "succeeded",
        ]
    }

    static func json(_ dispute: Dispute, charge: Charge, expanded: Bool) -> [String: Any] {
        [
            "id": dispute.id, "object": "dispute", "amount": dispute.amount, "status": dispute.status,
            "charge": expanded ? json(charge) as Any : charge.id, "payment_intent": charge.paymentIntent,
            "created": dispute.created, "livemode": false, "currency": "usd",
        ]
    }

    /// `value`, or JSON's `null`.
    static func orNull(_ value: String?) -> Any { value.map { $0 as Any } ?? NSNull() }

    /// The body of the event `type` about `object` as it is now (`data.object`), with a
    /// fresh `evt_…` id unless `id` is given; nil when the object is unknown.
    public func event(_ type: String, object id: String, eventID: String? = nil) -> [UInt8]? {
        // Stripe sends an account's events to its own endpoint: whichever account holds it.
        guard let object = self.object(id, account: nil) else { return nil }
        let event: [String: Any] = [
            "id": eventID ?? state.withLock { $0.next("evt") }, "object": "event", "api_version": "2025-03-31.basil",
            "created": seconds, "livemode": false, "pending_webhooks": 1, "type": type,
            "request": ["id": NSNull(), "idempotency_key": NSNull()] as [String: Any],
            "data": ["object": object],
        ]
        return (try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys])).map { Array($0) }
    }

    /// The event `type` about `object`, and the `Stripe-Signature` header Stripe would send
    /// with it: signed under `secret` at `time` (now by default); nil when the object is unknown.
    public func signedEvent(
        _ type: String, object id: String, secret: String, at time: Date? = nil, eventID: String? = nil
    ) -> (body: [UInt8], signature: String)? {
        guard let body = event(type, object: id, eventID: eventID) else { return nil }
        return (body, Self.signature(body, secret: secret, at: time ?? now()))
    }

    /// `t=<time>,v1=<hex HMAC-SHA256 of "<time>.<body>" under secret>`, as Stripe signs.
    public static func signature(_ body: [UInt8], secret: String, at time: Date) -> String {
        let timestamp = Int64(time.timeIntervalSince1970)
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(timestamp).".utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
