import Foundation
import Synchronization

/// Stripe's side, as the pipeline meets it: Checkout Sessions with their line items,
/// charges (refunded in full or in part) and disputes (opened, then won or lost), read over
/// the API routes Stripe serves, and webhook events signed as Stripe signs them.
///
/// Every API call checks the key (`Authorization: Bearer <apiKey>`) and may fail as
/// configured (`503`, then `429` with `Retry-After`), so a client's classification is
/// tested over real HTTP.
///
/// ```swift
/// let stripe = store.stripe
/// let paid = stripe.createSession(account: "player-1", lookupKey: "coins_100")
/// let (body, signature) = stripe.signedEvent("checkout.session.completed", object: paid.session, secret: secret)
/// ```
public final class StubStripe: Sendable {
    public struct Configuration: Sendable {
        /// The key every API call must carry: the default account's.
        public var apiKey = "sk_test_stub"
        /// The keys of other Stripe accounts this stub serves (another app's): each sees only
        /// the sessions, charges and disputes made in it, as Stripe's accounts do.
        public var otherAccountKeys: Set<String> = []
        /// The first this many API calls answer `503`.
        public var failFirst = 0
        /// Then the next this many answer `429` with `Retry-After`.
        public var rateLimitFirst = 0
        public var retryAfterSeconds = 1

        public init() {}
    }

    /// A paid (or still unpaid) session, and the payment it made.
    public struct Payment: Sendable, Hashable {
        public var session: String
        public var paymentIntent: String
        /// Nil until the session is paid.
        public var charge: String?
    }

    struct Session {
        /// The API key of the account it was made in.
        var account = ""
        var id: String
        var clientReferenceID: String?
        var paymentIntent: String
        var paid: Bool
        var lookupKeys: [String?]
        var quantity: Int
        var amount: Int
        var created: Int

        /// What the session charges. The admin route took `quantity` and `amount` only once
        /// their product fit (``StubStripe/amounts``); callers in Swift pass their own.
        var total: Int { amount * quantity }
    }

    struct Charge {
        var id: String
        var paymentIntent: String
        var amount: Int
        var amountRefunded = 0
        var created: Int
    }

    struct Dispute {
        var id: String
        var charge: String
        var amount: Int
        var status = "needs_response"
        var created: Int
    }

    struct State {
        var sessions: [String: Session] = [:]
        var charges: [String: Charge] = [:]
        var disputes: [String: Dispute] = [:]
        var serial = 0
        var apiCalls = 0
        var calls: [String: Int] = [:]

        mutating func next(_ prefix: String) -> String {
            serial += 1
            return "\(prefix)_stub\(String(serial, radix: 36))"
        }
    }

    public let configuration: Mutex<Configuration>
    let now: @Sendable () -> Date
    let state = Mutex(State())

    public init(configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = Mutex(configuration)
        self.now = now
    }

    /// API calls answered so far, by call (`checkout.sessions.retrieve`, `charges.retrieve`, ...).
    public var calls: [String: Int] { state.withLock { $0.calls } }

    var seconds: Int { Int(now().timeIntervalSince1970) }

    /// A session of `quantity` × the price `lookupKey` (nil: a price without one; several
    /// keys: several line items) for `account` (its `client_reference_id`), paid at once
    /// unless `paid` is false (an async payment method, paid later by ``pay(session:)``).
    @discardableResult
    public func createSession(
        account: String?, lookupKey: String?, quantity: Int = 1, amount: Int = 499, paid: Bool = true,
        moreLookupKeys: [String] = [], in stripeAccount: String? = nil
    ) -> Payment {
        let created = seconds
        let key = stripeAccount ?? configuration.withLock { $0.apiKey }
        return state.withLock { state in
            let session = Session(
                account: key, id: state.next("cs_test"), clientReferenceID: account, paymentIntent: state.next("pi"),
                paid: false, lookupKeys: [lookupKey] + moreLookupKeys, quantity: quantity, amount: amount,
                created: created)
            state.sessions[session.id] = session
            var payment = Payment(session: session.id, paymentIntent: session.paymentIntent)
            if paid { payment.charge = Self.pay(session.id, in: &state, at: created) }
            return payment
        }
    }

    /// Pays an unpaid session (its async payment succeeded): the charge's id, nil when there
    /// is no such session or it was paid already.
    @discardableResult
    public func pay(session id: String) -> String? {
        let created = seconds
        return state.withLock { state in
            guard state.sessions[id]?.paid == false else { return nil }
            return Self.pay(id, in: &state, at: created)
        }
    }

    private static func pay(_ id: String, in state: inout State, at created: Int) -> String {
        state.sessions[id]!.paid = true
        let session = state.sessions[id]!
        let charge = Charge(
            id: state.next("ch"), paymentIntent: session.paymentIntent, amount: session.total,
            created: created)
        state.charges[charge.id] = charge
        return charge.id
    }

    /// Refunds `amount` more of a charge (nil: all that is left), as Stripe adds refunds up;
    /// false when there is no such charge or it would refund more than was paid.
    @discardableResult
    public func refund(charge id: String, amount: Int? = nil) -> Bool {
        state.withLock { state in
            guard var charge = state.charges[id] else { return false }
            let left = charge.amount - charge.amountRefunded
            let more = amount ?? left
            // Compared with what is left, never added first: a client's Int.max cannot overflow.
            guard more > 0, more <= left else { return false }
            charge.amountRefunded += more
            state.charges[id] = charge
            return true
        }
    }

    /// Opens a dispute of `amount` of a charge (nil: all of it), its funds withdrawn: the
    /// dispute's id, nil when there is no such charge.
    public func openDispute(charge id: String, amount: Int? = nil) -> String? {
        let created = seconds
        return state.withLock { state in
            guard let charge = state.charges[id] else { return nil }
            let dispute = Dispute(
                id: state.next("dp"), charge: id, amount: amount ?? charge.amount, created: created)
            state.disputes[dispute.id] = dispute
            return dispute.id
        }
    }

    /// Closes a dispute `won` or `lost`; false when there is no such dispute.
    @discardableResult
    public func closeDispute(_ id: String, status: String) -> Bool {
        state.withLock { state in
            guard state.disputes[id] != nil, ["won", "lost"].contains(status) else { return false }
            state.disputes[id]!.status = status
            return true
        }
    }
}
