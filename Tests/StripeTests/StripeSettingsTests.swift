import Foundation
import PipelineCore
import Stripe
import Testing

/// Stripe's settings from the environment: off without a key, and each mistake named by its
/// variable without the secret in the message.
@Suite struct StripeSettingsTests {
    static let key = "sk_live_0123456789abcdef"
    static let secret = "whsec_0123456789abcdef"

    @Test func withoutAKeyStripeIsOff() throws {
        #expect(try StripeSettings(environment: EnvironmentReader([:])) == nil)
        #expect(try StripeStore(environment: EnvironmentReader(["IAP_STRIPE_WEBHOOK_SECRETS": Self.secret])) == nil)
    }

    @Test func theDefaultsAndARotation() throws {
        let settings = try #require(
            try StripeSettings(
                environment: EnvironmentReader([
                    "IAP_STRIPE_API_KEY": Self.key, "IAP_STRIPE_WEBHOOK_SECRETS": " \(Self.secret) , whsec_next_one1 ",
                ])))
        #expect(settings.apiURL == "https://api.stripe.com")
        #expect(settings.webhookSecrets == [Self.secret, "whsec_next_one1"])
        #expect(settings.signatureTolerance == .seconds(300))
        #expect(!settings.isTestMode)
        let stub = try #require(
            try StripeSettings(
                environment: EnvironmentReader([
                    "IAP_STRIPE_API_KEY": "rk_test_0123456789", "IAP_STRIPE_WEBHOOK_SECRETS": Self.secret,
                    "IAP_STRIPE_API_URL": "http://127.0.0.1:8090/stripe/", "IAP_STRIPE_SIGNATURE_TOLERANCE": "60",
                ])))
        #expect(stub.apiURL == "http://127.0.0.1:8090/stripe")
        #expect(stub.signatureTolerance == .seconds(60))
        #expect(stub.isTestMode)
        #expect(StripeStore.id == "stripe")
    }

    struct Wrong: CustomTestStringConvertible, Sendable {
        var values: [String: String]
        var variable: String
        var testDescription: String { variable + " " + values.keys.sorted().joined(separator: ",") }
    }

    static let wrong: [Wrong] = [
        Wrong(values: ["IAP_STRIPE_API_KEY": Self.key], variable: "IAP_STRIPE_WEBHOOK_SECRETS"),
        Wrong(
            values: ["IAP_STRIPE_API_KEY": "pk_live_0123456789", "IAP_STRIPE_WEBHOOK_SECRETS": Self.secret],
            variable: "IAP_STRIPE_API_KEY"),
        Wrong(
            values: ["IAP_STRIPE_API_KEY": Self.key, "IAP_STRIPE_WEBHOOK_SECRETS": "\(Self.secret),sk_live_oops1234"],
            variable: "IAP_STRIPE_WEBHOOK_SECRETS"),
        Wrong(
            values: [
                "IAP_STRIPE_API_KEY": Self.key, "IAP_STRIPE_WEBHOOK_SECRETS": Self.secret,
                "IAP_STRIPE_API_URL": "ftp://x",
            ],
            variable: "IAP_STRIPE_API_URL"),
        Wrong(
            values: [
                "IAP_STRIPE_API_KEY": Self.key, "IAP_STRIPE_WEBHOOK_SECRETS": Self.secret,
                "IAP_STRIPE_SIGNATURE_TOLERANCE": "0",
            ], variable: "IAP_STRIPE_SIGNATURE_TOLERANCE"),
    ]

    @Test(arguments: wrong)
    func aWrongSettingIsNamedWithoutItsSecret(_ wrong: Wrong) {
        do {
            _ = try StripeStore(environment: EnvironmentReader(wrong.values))
            Issue.record("accepted")
        } catch {
            #expect(error.variable == wrong.variable)
            #expect(!error.description.contains("0123456789"), "\(error.description)")
            #expect(!error.description.contains("oops"), "\(error.description)")
        }
    }
}
