import Apps
import Foundation
import Intake
import Pipeline
import PipelineCore

extension AppsFile.Schema {
    /// The common members and those of every store this build registers (``PluginStores/registered``).
    package static let registered = AppsFile.Schema(stores: PluginStores.registered.map { $0.appsFileSection })
}

extension AppsFile {
    /// What one app sets up, as `iap apps check` shows it: no secret, only what is
    /// configured and how much.
    struct Summary: Sendable {
        var id: String
        var stores: [String]
        var identities: [String]
        var products: Int?
        var tokens: Int
        var webhook: String?
    }

    /// Reads each app with the parsers of the single-app settings, over `base` (the
    /// process's environment): what they refuse is refused naming the app and its member.
    func check(over base: EnvironmentReader) throws(SettingError) -> [Summary] {
        var summaries: [Summary] = []
        for app in apps {
            let env = app.environment(over: base)
            do throws(SettingError) {
                let verifier = try VerifierSettings(environment: env)
                let tokens = env.list("IAP_API_TOKENS")
                _ = try APITokens(tokens: tokens)
                let webhook = try env.httpURL("IAP_WEBHOOK_URL")
                let products = try env.optional("IAP_CATALOG").map { path throws(SettingError) in
                    try PipelineSettings.catalog(at: path).products.count
                }
                // Google Play is always registered; it counts here once it can call Google. Apple
                // counts once, whether or not its Server API key makes it talk to Apple too.
                let stores = Set(
                    (app.parts.contains("apple") ? ["apple"] : [])
                        + verifier.stores.configured.filter { $0.value.talksToStore }.keys
                ).sorted()
                summaries.append(
                    Summary(
                        id: app.id, stores: stores,
                        identities: schema.identities.compactMap { app.members[$0] },
                        products: products, tokens: tokens.count, webhook: webhook.flatMap { URL(string: $0)?.host }))
            } catch {
                throw named(error, app: app.id)
            }
        }
        return summaries
    }
}
