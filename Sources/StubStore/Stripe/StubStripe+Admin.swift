import Foundation
import Hummingbird

extension StubStripe {
    /// What tests and drills do to Stripe's side over HTTP (JSON bodies, JSON answers):
    ///
    /// - `POST /stripe/stub/sessions` `{"client_reference_id", "lookup_key", "quantity",
    ///   "amount", "paid", "stripe_account"}`: a session (in the account whose API key
    ///   `stripe_account` is, the default one's when absent); answers `{"session",
    ///   "payment_intent", "charge"}`
    /// - `POST /stripe/stub/sessions/{id}/pay`: an async payment succeeded; answers `{"charge"}`
    /// - `POST /stripe/stub/charges/{id}/refund` `{"amount"}` (absent: the rest)
    /// - `POST /stripe/stub/charges/{id}/dispute` `{"amount"}`: answers `{"dispute"}`
    /// - `POST /stripe/stub/disputes/{id}/close` `{"status": "won" | "lost"}`
    /// - `POST /stripe/stub/events` `{"type", "object", "secret", "timestamp"}`: a signed event,
    ///   answered `{"body", "signature"}` (post `body` with `Stripe-Signature: signature`)
    ///
    /// Numbers are checked before anything is made: a `quantity` of 1 to 1,000,000, an `amount`
    /// (cents) of 0 to 99,999,999 (Stripe's most for one payment), and so the session's total;
    /// a refund or dispute `amount` of 1 to 99,999,999; a `timestamp` (seconds since 1970) up
    /// to the year 9999. Anything else, or a body that is not JSON, is `400` naming the member
    /// (`invalid_quantity`, `invalid_json`, ...), and the stub goes on serving.
    func registerAdminRoutes(on router: Router<BasicRequestContext>) {
        router.post("/stripe/stub/sessions") { request, _ in
            try await Self.checked {
                let body = try await StubField.body(request)
                let quantity = try StubField.integer(body, "quantity", in: StubField.quantities) ?? 1
                let amount = try StubField.integer(body, "amount", in: 0...Self.amounts.upperBound) ?? 499
                // The charge is amount × quantity: checked, as Stripe caps the total too.
                let (total, overflow) = amount.multipliedReportingOverflow(by: quantity)
                guard !overflow, total <= Self.amounts.upperBound else {
                    throw StubFieldError(
                        code: "invalid_amount", member: "amount",
                        message: "amount × quantity must come to at most \(Self.amounts.upperBound) cents")
                }
                let payment = self.createSession(
                    account: body["client_reference_id"] as? String, lookupKey: body["lookup_key"] as? String,
                    quantity: quantity, amount: amount, paid: body["paid"] as? Bool ?? true,
                    in: body["stripe_account"] as? String)
                return Self.json([
                    "session": payment.session, "payment_intent": payment.paymentIntent,
                    "charge": Self.orNull(payment.charge),
                ])
            }
        }
        router.post("/stripe/stub/sessions/:id/pay") { _, context in
            guard let charge = self.pay(session: context.parameters.get("id") ?? "") else {
                return Self.error(404, "resource_missing", "No unpaid session of that id")
            }
            return Self.json(["charge": charge])
        }
        router.post("/stripe/stub/charges/:id/refund") { request, context in
            try await Self.checked {
                let amount = try StubField.integer(try await StubField.body(request), "amount", in: Self.amounts)
                guard self.refund(charge: context.parameters.get("id") ?? "", amount: amount) else {
                    return Self.error(400, "charge_already_refunded", "No such charge, or nothing left to refund")
                }
                return Self.json(["refunded": true])
            }
        }
        router.post("/stripe/stub/charges/:id/dispute") { request, context in
            try await Self.checked {
                let amount = try StubField.integer(try await StubField.body(request), "amount", in: Self.amounts)
                guard let dispute = self.openDispute(charge: context.parameters.get("id") ?? "", amount: amount) else {
                    return Self.error(404, "resource_missing", "No such charge")
                }
                return Self.json(["dispute": dispute])
            }
        }
        router.post("/stripe/stub/disputes/:id/close") { request, context in
            try await Self.checked {
                let body = try await StubField.body(request)
                guard self.closeDispute(context.parameters.get("id") ?? "", status: body["status"] as? String ?? "")
                else {
                    return Self.error(400, "invalid_request", "No such dispute, or status is not won or lost")
                }
                return Self.json(["closed": true])
            }
        }
        router.post("/stripe/stub/events") { request, _ in
            try await Self.checked {
                let body = try await StubField.body(request)
                let time = try StubField.integer(body, "timestamp", in: 0...StubField.latestSecond)
                    .map { Date(timeIntervalSince1970: Double($0)) }
                guard let type = body["type"] as? String, let object = body["object"] as? String,
                    let secret = body["secret"] as? String,
                    let event = self.signedEvent(type, object: object, secret: secret, at: time)
                else {
                    return Self.error(400, "invalid_request", "type, object (a known id) and secret are required")
                }
                return Self.json(["body": String(decoding: event.body, as: UTF8.self), "signature": event.signature])
            }
        }
    }

    /// The amounts (cents) a payment, refund or dispute may have: up to Stripe's most for one
    /// payment, $999,999.99.
    static let amounts = 1...99_999_999

    /// `answer`, or `400` in Stripe's error shape naming the member it refused.
    private static func checked(_ answer: () async throws -> Response) async throws -> Response {
        do {
            return try await answer()
        } catch let refusal as StubFieldError {
            return error(400, refusal.code, refusal.message, param: refusal.member)
        }
    }
}
