import Foundation
import PipelineCore
import StorePlugins

/// Stripe as a plug-in store: a game's web shop sells through Stripe Checkout, and the
/// pipeline learns of each payment from Stripe's webhook events.
///
/// Backends post nothing: the game's backend creates a Checkout Session whose
/// `client_reference_id` is the player's account id and whose price has a `lookup_key` the
/// catalog knows; Stripe posts its events to `POST /v1/stripe/notifications`. Each event is
/// authenticated by its `Stripe-Signature` and stored once by its id; the verifier then
/// reads what it names back from Stripe's API (``StripeVerifier``). See `docs/stripe.md`.
public struct StripeStore: StorePlugin {
    public static let id = "stripe"

    public let settings: StripeSettings
    let now: @Sendable () -> Date

    /// - Parameter now: The clock the signatures' timestamps are checked against.
    public init(settings: StripeSettings, now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.now = now
    }

    /// Stripe as ``StripeSettings/init(environment:)`` reads it; nil when `IAP_STRIPE_API_KEY` is unset.
    public init?(environment: EnvironmentReader) throws(SettingError) {
        guard let settings = try StripeSettings(environment: environment) else { return nil }
        self.init(settings: settings)
    }

    public var takesNotifications: Bool { true }

    /// Authenticates one webhook delivery, then reads its event. A delivery whose signature
    /// does not hold is refused before its body is read.
    public func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
        try StripeSignature(secrets: settings.webhookSecrets, tolerance: settings.signatureTolerance)
            .verify(header: request.headers["stripe-signature"], body: request.body, now: now())
        let event = try StripeEvent(body: request.body)
        return InboundNotification(messageID: event.id, evidence: event.evidence)
    }

    /// A verifier over the pipeline's HTTP client, its reads booked in `context.budgets`.
    public func verifier(_ context: StoreContext) throws -> any ReceiptVerifier {
        StripeVerifier(
            client: StripeClient(
                apiKey: settings.apiKey, apiURL: settings.apiURL, httpClient: context.httpClient,
                quota: .forKey(testMode: settings.isTestMode), budgets: context.budgets),
            now: now)
    }
}
