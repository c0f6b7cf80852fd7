import Apps
import PipelineCore

/// The notifier's settings from the environment: `IAP_WEBHOOK_URL` and `IAP_WEBHOOK_SECRET`, and
/// each app's webhook in `IAP_APPS` (NotifierSettings+Apps.swift).
///
/// Without `IAP_WEBHOOK_URL` the notifier is disabled: it says so once at start and
/// notifications wait in the outbox. With it, `IAP_WEBHOOK_SECRET` is required, unless the
/// caller asks for a generated one (`iap up`, which prints it for the receiver).
///
/// ```swift
/// let settings = try NotifierSettings(environment: EnvironmentReader(), apps: nil)
/// let notifier = Notifier(configuration: settings.configuration(), database: db, client: http, logger: logger)
/// ```
public struct NotifierSettings: Sendable {
    /// `IAP_WEBHOOK_URL`, an http(s) URL, or nil when unset.
    public var webhookURL: String?
    /// `IAP_WEBHOOK_SECRET`, or a generated one (see ``secretWasGenerated``).
    public var secret: WebhookSecret
    /// The second secret of `IAP_WEBHOOK_SECRET` during a rotation (`whsec_new whsec_old`).
    public var additionalSecrets: [WebhookSecret] = []
    /// True when `IAP_WEBHOOK_SECRET` was not set and ``secret`` was generated here. When
    /// webhooks are enabled, print ``WebhookSecret/encoded`` so the receiver can verify.
    public var secretWasGenerated: Bool

    /// The other apps' webhooks, by app id (`IAP_APPS`).
    public var apps: [String: Notifier.AppWebhook] = [:]

    /// Whether webhooks will be delivered.
    public var isEnabled: Bool { webhookURL != nil || !apps.isEmpty }

    /// Reads the settings.
    /// - Parameters:
    ///   - environment: Where to read them.
    ///   - apps: The apps file (`IAP_APPS`) as the process read it; nil without one.
    ///   - generateMissingSecret: Whether a missing `IAP_WEBHOOK_SECRET` is replaced by a fresh
    ///     one while `IAP_WEBHOOK_URL` is set (for local all-in-one runs) instead of an error.
    /// - Throws: ``SettingError`` naming `IAP_WEBHOOK_URL` when it is not an http(s) URL, or
    ///   `IAP_WEBHOOK_SECRET` when it is malformed, or missing while the URL is set; or naming
    ///   the app and its member of `IAP_APPS` that is.
    public init(
        environment: EnvironmentReader = EnvironmentReader(), apps: AppsFile?, generateMissingSecret: Bool = false
    ) throws(SettingError) {
        try self.init(single: environment, generateMissingSecret: generateMissingSecret)
        if let apps { try read(apps, over: environment) }
    }

    /// The single-app settings alone.
    init(single environment: EnvironmentReader, generateMissingSecret: Bool) throws(SettingError) {
        let url = try environment.httpURL("IAP_WEBHOOK_URL")
        if let raw = environment.optional("IAP_WEBHOOK_SECRET") {
            // Two secrets, space or comma separated, while a rotation is under way.
            let encoded = raw.split(whereSeparator: { $0 == " " || $0 == "," })
            guard (1...2).contains(encoded.count) else {
                throw SettingError(
                    variable: "IAP_WEBHOOK_SECRET",
                    problem:
                        "holds one secret, or two separated by a space or comma during a rotation (has \(encoded.count))"
                )
            }
            self.secret = try WebhookSecret(String(encoded[0]), variable: "IAP_WEBHOOK_SECRET")
            self.additionalSecrets = try encoded.dropFirst().map { (text) throws(SettingError) in
                try WebhookSecret(String(text), variable: "IAP_WEBHOOK_SECRET")
            }
            self.secretWasGenerated = false
        } else if url == nil || generateMissingSecret {
            // Unused while disabled; printed by the caller otherwise.
            self.secret = WebhookSecret.generate()
            self.secretWasGenerated = true
        } else {
            throw SettingError(
                variable: "IAP_WEBHOOK_SECRET",
                problem: "is required when IAP_WEBHOOK_URL is set (whsec_ followed by the base64 of 24-64 bytes)")
        }
        self.webhookURL = url
    }

    /// A notifier configuration with these settings and the defaults for the rest.
    public func configuration() -> Notifier.Configuration {
        var configuration = Notifier.Configuration(webhookURL: webhookURL, secret: secret)
        configuration.additionalSecrets = additionalSecrets
        configuration.apps = apps
        return configuration
    }
}
