import Foundation
import PipelineCore

/// How the pipeline reaches Stripe, from the environment:
///
/// - `IAP_STRIPE_API_KEY`: the secret (`sk_…`) or restricted (`rk_…`) key the verifier reads
///   sessions, charges and disputes with. Unset, Stripe is off.
/// - `IAP_STRIPE_WEBHOOK_SECRETS`: the endpoint's signing secrets (`whsec_…`), comma-separated;
///   two while a rotation lets the old one run out.
/// - `IAP_STRIPE_API_URL`: Stripe's API (`https://api.stripe.com`), or the stub's.
/// - `IAP_STRIPE_SIGNATURE_TOLERANCE`: how many seconds a signature's timestamp may be off (300).
public struct StripeSettings: Sendable {
    public var apiKey: String
    public var webhookSecrets: [String]
    public var apiURL: String
    public var signatureTolerance: Duration

    public init(
        apiKey: String, webhookSecrets: [String], apiURL: String = "https://api.stripe.com",
        signatureTolerance: Duration = .seconds(300)
    ) {
        self.apiKey = apiKey
        self.webhookSecrets = webhookSecrets
        var url = apiURL
        while url.hasSuffix("/") { url.removeLast() }
        self.apiURL = url
        self.signatureTolerance = signatureTolerance
    }

    /// The settings the environment asks for, or nil when `IAP_STRIPE_API_KEY` is unset.
    /// - Throws: ``SettingError`` naming the variable at fault; no message repeats a key or secret.
    public init?(environment env: EnvironmentReader) throws(SettingError) {
        guard let key = env.optional("IAP_STRIPE_API_KEY") else { return nil }
        guard ["sk_", "rk_"].contains(where: { key.hasPrefix($0) }), key.count > 10, !key.contains(" ") else {
            throw SettingError(
                variable: "IAP_STRIPE_API_KEY", problem: "must be a secret (sk_…) or restricted (rk_…) API key")
        }
        let secrets = env.list("IAP_STRIPE_WEBHOOK_SECRETS")
        guard !secrets.isEmpty else {
            throw SettingError(
                variable: "IAP_STRIPE_WEBHOOK_SECRETS",
                problem:
                    "is required with IAP_STRIPE_API_KEY: the endpoint's signing secrets (whsec_…), comma-separated")
        }
        for (index, secret) in secrets.enumerated() where !secret.hasPrefix("whsec_") || secret.count < 10 {
            throw SettingError(
                variable: "IAP_STRIPE_WEBHOOK_SECRETS", problem: "entry \(index + 1) is not a signing secret (whsec_…)")
        }
        let tolerance = try env.int("IAP_STRIPE_SIGNATURE_TOLERANCE", default: 300, range: 1...86_400)
        self.init(
            apiKey: key, webhookSecrets: secrets,
            apiURL: try env.httpURL("IAP_STRIPE_API_URL", default: "https://api.stripe.com")!,
            signatureTolerance: .seconds(tolerance))
    }

    /// Whether the key is a test-mode key (`sk_test_…`, `rk_test_…`): Stripe's sandbox has
    /// a quarter of live mode's rate limit.
    public var isTestMode: Bool { apiKey.hasPrefix("sk_test_") || apiKey.hasPrefix("rk_test_") }
}
