import Notifier
import PipelineCore
import Testing

@Suite struct NotifierSettingsTests {
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    func variable(of body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as SettingError {
            return error.variable
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func urlAndSecretEnableDelivery() throws {
        let settings = try NotifierSettings(
            environment: EnvironmentReader([
                "IAP_WEBHOOK_URL": "https://backend.example/iap/webhooks", "IAP_WEBHOOK_SECRET": secret,
            ]), apps: nil)

        #expect(settings.isEnabled)
        #expect(settings.webhookURL == "https://backend.example/iap/webhooks")
        #expect(settings.secret == (try WebhookSecret(secret)))
        #expect(!settings.secretWasGenerated)
        #expect(settings.configuration().webhookURL == "https://backend.example/iap/webhooks")
        #expect(settings.configuration().maxInFlight == 64)
        #expect(settings.configuration().pollInterval == .milliseconds(200))
    }

    @Test func withoutAURLDeliveryIsDisabled() throws {
        let settings = try NotifierSettings(environment: EnvironmentReader([:]), apps: nil)

        #expect(!settings.isEnabled)
        #expect(settings.configuration().webhookURL == nil)
    }

    @Test func aURLWithoutASecretIsAnErrorUnlessOneMayBeGenerated() throws {
        let environment = EnvironmentReader(["IAP_WEBHOOK_URL": "http://127.0.0.1:9000/hooks"])

        #expect(variable { _ = try NotifierSettings(environment: environment, apps: nil) } == "IAP_WEBHOOK_SECRET")

        let generated = try NotifierSettings(environment: environment, apps: nil, generateMissingSecret: true)
        #expect(generated.secretWasGenerated)
        #expect(try WebhookSecret(generated.secret.encoded) == generated.secret)
    }

    @Test func malformedSettingsAreNamed() {
        #expect(
            variable {
                _ = try NotifierSettings(
                    environment: EnvironmentReader(["IAP_WEBHOOK_URL": "ftp://x", "IAP_WEBHOOK_SECRET": secret]),
                    apps: nil)
            } == "IAP_WEBHOOK_URL")
        #expect(
            variable {
                _ = try NotifierSettings(
                    environment: EnvironmentReader([
                        "IAP_WEBHOOK_URL": "http://127.0.0.1/hooks", "IAP_WEBHOOK_SECRET": "hunter2",
                    ]), apps: nil)
            } == "IAP_WEBHOOK_SECRET")
        // A bad secret stops the start even while delivery is off: it would fail later anyway.
        #expect(
            variable {
                _ = try NotifierSettings(
                    environment: EnvironmentReader(["IAP_WEBHOOK_SECRET": "whsec_AAAA"]), apps: nil)
            }
                == "IAP_WEBHOOK_SECRET")
    }
}
