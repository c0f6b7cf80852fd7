import ArgumentParser
import PipelineCore

/// `--app ID`: what the operator's listing commands share to look at one app's rows.
struct AppOption: ParsableArguments {
    @Option(
        help: """
            Only this app's rows (an id of IAP_APPS; `default` with the single-app settings). \
            Without it, every app's, accounts named <app>/<account>.
            """)
    var app: String?

    /// The app asked for, or nil for every app.
    /// - Throws: `ValidationError` naming an id the apps file does not list.
    func scope(in apps: AppDirectory) throws -> AppScope? {
        try Self.scope(app, in: apps)
    }

    /// The scope of `app` given as `--app`, or nil when it is not given.
    /// - Throws: `ValidationError` naming an id the apps file does not list.
    static func scope(_ app: String?, in apps: AppDirectory) throws -> AppScope? {
        guard let app else { return nil }
        guard let scope = apps.scope(app) else {
            let known = apps.hasApps ? apps.ids.joined(separator: ", ") : AppDirectory.singleAppName
            throw ValidationError("--app: no app '\(app.prefix(64))' in IAP_APPS (apps: \(known))")
        }
        return scope
    }
}

extension PipelineSettings {
    /// The apps of `IAP_APPS` as the operator's commands filter and name them.
    var appDirectory: AppDirectory { AppDirectory(ids: apps?.apps.map(\.id) ?? []) }
}
