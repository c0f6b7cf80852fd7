import Foundation
import Hummingbird

extension StubStripe {
    /// What tests and drills do to Stripe's side over HTTP (JSON bodies, JSON answers):
    ///
    /// - `POST /stripe/stub/sessions` `{"client_reference_id", "lookup_key", "quantity",
    ///   "amount", "paid"}`: a session; answers `{"session", "payment_intent", "charge"}`
    /// - `POST /stripe/stub/sessions/{id}/pay`: an async payment succeeded; answers `{"charge"}`
    /// - `POST /stripe/stub/charges/{id}/refund` `{"amount"}` (absent: the rest)
    /// - `POST /stripe/stub/charges/{id}/dispute` `{"amount"}`: answers `{"dispute"}`
    /// - `POST /stripe/stub/disputes/{id}/close` `{"status": "won" | "lost"}`
    /// - `POST /stripe/stub/events` `{"type", "object", "secret", "timestamp"}`: a signed event,
    ///   answered `{"body", "signature"}` (post `body` with `Stripe-Signature: signature`)
    func registerAdminRoutes(on router: Router<BasicRequestContext>) {
        router.post("/stripe/stub/sessions") { request, _ in
            let body = try await Self.body(request)
            let payment = self.createSession(
                account: body["client_reference_id"] as? String, lookupKey: body["lookup_key"] as? String,
                quantity: body["quantity"] as? Int ?? 1, amount: body["amount"] as? Int ?? 499,
                paid: body["paid"] as? Bool ?? true)
            return Self.json([
                "session": payment.session, "payment_intent": payment.paymentIntent,
                "charge": Self.orNull(payment.charge),
            ])
        }
        router.post("/stripe/stub/sessions/:id/pay") { _, context in
            guard let charge = self.pay(session: context.parameters.get("id") ?? "") else {
                return Self.error(404, "resource_missing", "No unpaid session of that id")
            }
            return Self.json(["charge": charge])
        }
        router.post("/stripe/stub/charges/:id/refund") { request, context in
            let body = try await Self.body(request)
            guard self.refund(charge: context.parameters.get("id") ?? "", amount: body["amount"] as? Int) else {
                return Self.error(400, "charge_already_refunded", "No such charge, or nothing left to refund")
            }
            return Self.json(["refunded": true])
        }
        router.post("/stripe/stub/charges/:id/dispute") { request, context in
            let body = try await Self.body(request)
            guard
                let dispute = self.openDispute(
                    charge: context.parameters.get("id") ?? "", amount: body["amount"] as? Int)
            else {
                return Self.error(404, "resource_missing", "No such charge")
            }
            return Self.json(["dispute": dispute])
        }
        router.post("/stripe/stub/disputes/:id/close") { request, context in
            let body = try await Self.body(request)
            guard self.closeDispute(context.parameters.get("id") ?? "", status: body["status"] as? String ?? "") else {
                return Self.error(400, "invalid_request", "No such dispute, or status is not won or lost")
            }
            return Self.json(["closed": true])
        }
        router.post("/stripe/stub/events") { request, _ in
            let body = try await Self.body(request)
            let time = (body["timestamp"] as? Int).map { Date(timeIntervalSince1970: Double($0)) }
            guard let type = body["type"] as? String, let object = body["object"] as? String,
                let secret = body["secret"] as? String,
                let event = self.signedEvent(type, object: object, secret: secret, at: time)
            else {
                return Self.error(400, "invalid_request", "type, object (a known id) and secret are required")
            }
            return Self.json(["body": String(decoding: event.body, as: UTF8.self), "signature": event.signature])
        }
    }

    private static func body(_ request: Request) async throws -> [String: Any] {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        return (try? JSONSerialization.jsonObject(with: Data(buffer: buffer))) as? [String: Any] ?? [:]
    }
}
