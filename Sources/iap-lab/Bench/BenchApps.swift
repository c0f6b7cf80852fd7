import Foundation
import Notifier
import PipelineCore

/// The apps `iap-lab bench stages --apps N` spreads its load over (issue 30): an apps file of N
/// apps, each with its own bundle id, token, webhook secret and accounts, all on the
/// sample catalog and the benchmark's webhook receiver. Receipt `i` is app `i % N`'s.
struct BenchApps: Sendable {
    struct App: Sendable {
        var id: String
        var bundleID: String
        var token: String
        /// How its accounts are keyed in the database (the first app's bare).
        var scope: AppScope
    }

    let apps: [App]

    /// - Parameter bundleID: the first app's, the one the stages' single-app settings name.
    init(count: Int, bundleID: String) {
        apps = (1...count).map { number in
            App(
                id: "app-\(number)", bundleID: number == 1 ? bundleID : "\(bundleID).\(number)",
                token: "bench-app-\(number)-token-0123456789",
                scope: AppScope(app: "app-\(number)", isDefault: number == 1))
        }
    }

    /// The app receipt `index` is posted for.
    func app(of index: Int) -> App { apps[index % apps.count] }

    /// Writes the apps file to `path`, every app's webhooks to `webhookURL`.
    func write(to path: String, webhookURL: String) throws {
        let entries = apps.map { app in
            """
              - id: \(app.id)
                api_tokens: [\(app.token)]
                webhook: { url: "\(webhookURL)", secret: "\(WebhookSecret.generate().encoded)" }
                apple: { bundle_id: \(app.bundleID) }
            """
        }
        try ("apps:\n" + entries.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
