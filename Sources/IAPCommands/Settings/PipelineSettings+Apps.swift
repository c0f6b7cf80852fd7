import AppStore
import Apps
import Logging
import Pipeline
import PipelineCore

/// What the validator and the fulfiller serve (issue 30): with `IAP_APPS`, each app's own
/// stores and catalog, as its members configure them.
extension PipelineSettings {
    package struct ServedApps {
        /// The default app's stores (the first app's members over the single-app variables).
        var verifier: VerifierSettings
        /// The default app's catalog.
        var catalog: Catalog
        /// Every other app's, and which app each store identity names; nil without `IAP_APPS`.
        var apps: AppsParts?
    }

    package func servedApps(logger: Logger) throws -> ServedApps {
        guard let file = apps, let first = file.apps.first else {
            return ServedApps(
                verifier: try VerifierSettings(environment: environment),
                catalog: try catalog(logger: logger))
        }
        let defaultEnvironment = environment(of: AppScope(app: first.id, isDefault: true))
        let catalogs = try appCatalogs(logger: logger)
        var others: [String: AppsParts.App] = [:]
        var identities: [String: String] = [:]
        for app in file.apps {
            let env = environment(of: AppScope(app: app.id, isDefault: app.id == first.id))
            do throws(SettingError) {
                for identity in file.schema.identities(in: env) { identities[identity] = app.id }
                guard app.id != first.id else { continue }
                others[app.id] = AppsParts.App(
                    stores: try VerifierSettings(environment: env).stores,
                    catalog: catalogs.others[app.id] ?? catalogs.defaultCatalog)
            } catch {
                throw file.named(error, app: app.id)
            }
        }
        return ServedApps(
            verifier: try VerifierSettings(environment: defaultEnvironment),
            catalog: catalogs.defaultCatalog,
            apps: AppsParts(defaultApp: first.id, others: others, identities: identities))
    }

    /// The settings `app` is served with: its members over the settings that are not per app
    /// (the default app's over the single-app variables); the environment itself without `IAP_APPS`.
    package func environment(of app: AppScope) -> EnvironmentReader {
        guard let file = apps, let first = file.apps.first else { return environment }
        guard !app.isDefault, let entry = file.apps.first(where: { $0.id == app.id }) else {
            return first.environment(overlaying: environment)
        }
        return entry.environment(over: environment)
    }

    /// Each app's catalog (the single-app settings' one without `IAP_APPS`): what the
    /// fulfiller prices by and an operator's adjustment is checked against.
    package func appCatalogs(logger: Logger) throws -> AppCatalogs {
        guard let file = apps, let first = file.apps.first else { return AppCatalogs(try catalog(logger: logger)) }
        let defaultCatalog = try catalog(in: environment(of: AppScope(app: first.id, isDefault: true)), logger: logger)
        var others: [String: Catalog] = [:]
        for app in file.apps.dropFirst() {
            // An app without a catalog of its own sells what the default app sells.
            guard let path = environment(of: AppScope(app: app.id, isDefault: false)).optional("IAP_CATALOG") else {
                continue
            }
            do throws(SettingError) {
                others[app.id] = try Self.catalog(at: path)
            } catch {
                throw file.named(error, app: app.id)
            }
        }
        return AppCatalogs(defaultCatalog, others: others)
    }

    /// What the console's grants are checked against with `IAP_APPS`: each app's catalog;
    /// nil with the single-app settings, where the stage's one catalog serves.
    package func consoleCatalogs() throws -> AppCatalogs? {
        guard apps != nil else { return nil }
        // Read after the stage's own catalog, whose notices are logged already.
        var quiet = logger("console")
        quiet.logLevel = .error
        return try appCatalogs(logger: quiet)
    }
}
