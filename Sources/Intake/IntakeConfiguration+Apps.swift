import Apps
import PipelineCore

/// The intake's apps: each backend token acts for one app (issue 30). With `IAP_APPS` the
/// first app of the file is the default app, whose accounts keep bare ids (every row written
/// before the file is its own); `IAP_API_TOKENS` and `IAP_API_TOKENS_FILE`, if set beside it,
/// are that app's tokens too, so a single-app deployment moves to the file without a new token.
extension IntakeConfiguration {
    /// The default app's fixed tokens: `listed` (`IAP_API_TOKENS`) and the first app's.
    static func defaultAppTokens(_ listed: [String], apps: AppsFile?) -> [String] {
        var seen = Set<String>()
        return (listed + (apps?.apps.first?.list("api_tokens") ?? [])).filter { seen.insert($0).inserted }
    }

    /// Every app's tokens, checked by the single-app rule and refused naming the app.
    static func tokens(_ listed: [String], file: String?, apps: AppsFile?) throws(SettingError) -> APITokens {
        guard let apps, let first = apps.apps.first else { return try APITokens(tokens: listed, file: file) }
        var others: [AppScope: [String]] = [:]
        for (index, app) in apps.apps.enumerated() {
            let tokens = app.list("api_tokens")
            do throws(SettingError) {
                _ = try APITokens(tokens: tokens)
            } catch {
                throw apps.named(error, app: app.id)
            }
            if index > 0 { others[AppScope(app: app.id, isDefault: false)] = tokens }
        }
        return try APITokens(
            tokens: listed, file: file, app: AppScope(app: first.id, isDefault: true), others: others)
    }
}
