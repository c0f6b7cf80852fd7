import Foundation
import PipelineCore
import StorePlugins

/// Verifies Stripe events by reading what they name back from Stripe's API: an event says
/// that something happened, the API says what is true now.
///
/// - `checkout.session.completed`, `checkout.session.async_payment_succeeded`: a paid
///   session credits one transaction, `stripe:<payment_intent>`, to its `client_reference_id`
///   (a `SUBSCRIBED` notification whose subtype is Stripe's type). The same payment announced
///   by both events is one transaction id, credited once. An unpaid session is recorded.
/// - `charge.refunded`: takes back the refunded share of the payment (`REFUND`).
/// - `charge.dispute.funds_withdrawn`, and `charge.dispute.closed` lost: takes back the
///   disputed share (`REVOKE`); `charge.dispute.closed` won gives it back (`REFUND_REVERSED`).
///   See ``dispute(_:id:)``.
/// - Anything else is recorded under Stripe's own type, which the engine ignores.
///
/// Stripe's failures and its rate limit retry; an object Stripe does not know, or a session
/// the pipeline cannot credit (no account, no price lookup key, several line items), is
/// rejected with the reason.
public struct StripeVerifier: ReceiptVerifier {
    public let client: StripeClient
    let now: @Sendable () -> Date

    public init(client: StripeClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.now = now
    }

    /// The transaction id of a Stripe payment: its PaymentIntent's id, prefixed so that it
    /// cannot meet another store's.
    public static func transactionID(paymentIntent: String) -> String { "stripe:" + paymentIntent }

    public func verify(_ submission: Submission) async -> VerificationOutcome {
        let evidence = submission.evidence.storeEvidence
        guard evidence.store == StripeStore.id,
            evidence.kind == StripeEvent.kind
        else {
            return .rejected(reason: "not_stripe")
        }
        guard let event = StripeEvent(payload: evidence.payload) else {
            return .rejected(reason: "stripe_event_unreadable")
        }
        let acted = Self.actedOn.contains(event.type)
        guard let id = event.objectID, acted else {
            return acted ? .rejected(reason: "stripe_event_without_object_id") : .notification(Self.recorded(event))
        }
        do {
            switch event.type {
            case "charge.refunded": return try await refund(event, charge: id)
            case "charge.dispute.funds_withdrawn", "charge.dispute.closed": return try await dispute(event, id: id)
            default: return try await session(event, id: id)
            }
        } catch {
            return Self.outcome(error)
        }
    }

    /// The events the verifier reads back and acts on; others are recorded as they are.
    static let actedOn: Set<String> = [
        "checkout.session.completed", "checkout.session.async_payment_succeeded", "charge.refunded",
        "charge.dispute.funds_withdrawn", "charge.dispute.closed",
    ]

    /// A completed session, read back with its line items: credited once it is paid.
    func session(_ event: StripeEvent, id: String) async throws(StoreCallError) -> VerificationOutcome {
        let session = try await client.checkoutSession(id)
        guard session.mode == nil || session.mode == "payment" else {
            return .rejected(reason: "stripe_session_not_a_payment")
        }
        // An async method (a bank debit) completes the session unpaid; its
        // async_payment_succeeded event credits it later.
        guard session.paymentStatus == "paid" else { return .notification(Self.recorded(event)) }
        switch Self.transaction(of: session) {
        case .failure(let refusal):
            return .rejected(reason: refusal.reason)
        case .success(let transaction):
            var notification = Self.recorded(event, as: StoreNotification.Kind.subscribed.rawValue)
            notification.transaction = transaction
            return .notification(notification)
        }
    }

    /// Why a session credits nothing.
    struct Refusal: Error, Hashable {
        var reason: String
    }

    /// The transaction a paid session is: one line item, its price's lookup key the product.
    static func transaction(of session: StripeCheckoutSession) -> Result<VerifiedTransaction, Refusal> {
        guard let account = session.clientReferenceId, !account.isEmpty else {
            return .failure(Refusal(reason: "stripe_session_without_client_reference_id"))
        }
        guard let paymentIntent = session.paymentIntent, !paymentIntent.isEmpty else {
            return .failure(Refusal(reason: "stripe_session_without_payment_intent"))
        }
        guard let items = session.lineItems?.data, items.count == 1, session.lineItems?.hasMore != true else {
            return .failure(Refusal(reason: "stripe_session_needs_one_line_item"))
        }
        guard let product = items[0].price?.lookupKey, !product.isEmpty else {
            return .failure(Refusal(reason: "stripe_price_without_lookup_key"))
        }
        let id = transactionID(paymentIntent: paymentIntent)
        return .success(
            VerifiedTransaction(
                transactionID: id, originalTransactionID: id, productID: product,
                quantity: max(1, items[0].quantity ?? 1),
                purchaseDate: session.created.map { Date(timeIntervalSince1970: Double($0)) },
                storeAccountID: account,
                // Stripe's `amount_total` is in the currency's smallest unit.
                priceMicros: session.currency.flatMap { currency in
                    session.amountTotal.flatMap {
                        CurrencyUnits.micros(minorUnits: $0, currency: currency.uppercased())
                    }
                }, currency: session.currency?.uppercased(),
                taxMicros: session.currency.flatMap { currency in
                    session.totalDetails?.amountTax.flatMap {
                        CurrencyUnits.micros(minorUnits: $0, currency: currency.uppercased())
                    }
                }))
    }

    /// The notification an event is, before anything is read: Stripe's type (which the engine
    /// records and ignores) unless `type` names what to do.
    static func recorded(_ event: StripeEvent, as type: String? = nil) -> StoreNotification {
        StoreNotification(
            notificationUUID: event.id, type: type ?? event.type, subtype: type == nil ? nil : event.type,
            environment: event.livemode ? "Production" : "Sandbox", signedDate: event.created)
    }

    static func outcome(_ error: StoreCallError) -> VerificationOutcome {
        switch error.code {
        case .notFound: .rejected(reason: "stripe_not_found")
        case .invalidRequest: .rejected(reason: "stripe_invalid_request")
        case .rateLimited: .transient(reason: "stripe_rate_limited", retryAfter: error.retryAfter)
        case .unauthorized: .transient(reason: "stripe_unauthorized")
        case .unavailable: .transient(reason: "stripe_unavailable", retryAfter: error.retryAfter)
        case .malformedResponse: .transient(reason: "stripe_malformed_response")
        case .overBudget: .deferred(reason: "stripe_budget", retryAfter: error.retryAfter ?? .seconds(1))
        }
    }
}
