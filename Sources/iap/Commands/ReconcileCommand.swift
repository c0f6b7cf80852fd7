import ArgumentParser
import Foundation
import PipelineCore
import Reconciliation
import Store

extension IAP {
    /// Asks Apple's Notification History for what never reached us, and feeds it in.
    struct Reconcile: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find App Store Server Notifications Apple could not deliver, and feed in those never stored.",
            discussion: """
                Asks the App Store Server API's Notification History (failures only) of each deployment \
                in IAP_RECONCILE_ENVIRONMENTS for the window, with the IAP_APPSTORE_* credentials. Each \
                notification we never stored is stored as the intake would, and the intake's relay \
                publishes it through the validate queue: verified, then applied once. Exits 1 when the \
                run failed. The fulfiller also runs this every IAP_RECONCILE_INTERVAL_SECONDS.
                """)

        @Option(help: "Start of the window: 7d, 36h, 90m ago, or an ISO 8601 date; at most 180 days back.")
        var since = "7d"
        @Option(help: "End of the window (the same forms); now by default.") var until: String?
        @Flag(help: "Only report what is missing; store nothing.") var dryRun = false
        @Flag(help: "Print the report as JSON.") var json = false

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let logger = settings.logger("reconcile")
            let now = Date()
            let window = try ReconciliationWindow.requested(
                since: ReconciliationWindow.parse(since, now: now),
                until: until.map { text throws(ReconciliationError) in try ReconciliationWindow.parse(text, now: now) },
                now: now)
            let reconcile = try ReconcileSettings(
                environment: settings.environment, verifier: VerifierSettings(environment: settings.environment))
            let database = try await settings.openDatabase()
            guard let (reconciler, client) = try reconcile.makeReconciler(database: database, logger: logger) else {
                throw SettingError(
                    variable: "IAP_APPSTORE_PRIVATE_KEY",
                    problem: "reconciliation asks the App Store Server API: set it, IAP_APPSTORE_KEY_ID and "
                        + "IAP_APPSTORE_ISSUER_ID")
            }
            let report = await reconciler.run(window, trigger: .operator, dryRun: dryRun)
            await client.shutdown()
            print(json ? try Self.json(report) : Self.text(report))
            if report.error != nil { throw ExitCode(1) }
        }

        static func text(_ report: ReconciliationReport) -> String {
            var lines = [
                "reconcile \(report.window)\(report.dryRun ? " (dry run)" : ""): \(report.examined) undelivered "
                    + "listed by Apple, \(report.missing.count) never stored, \(report.fed) fed"
            ]
            for deployment in report.environments {
                lines.append(
                    "  \(deployment.environment): \(deployment.examined) listed, \(deployment.missing.count) missing, "
                        + "\(deployment.fed) fed")
                for missing in deployment.missing.prefix(50) {
                    lines.append(
                        "    - \(missing.notificationType ?? "unreadable") \(missing.notificationUUID ?? "(no uuid)")"
                            + (missing.notificationID.map { " -> \($0)" } ?? ""))
                }
            }
            if let error = report.error { lines.append("error: \(error)") }
            return lines.joined(separator: "\n")
        }

        static func json(_ report: ReconciliationReport) throws -> String {
            let encoder = WireCoding.encoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            return String(decoding: try encoder.encode(report), as: UTF8.self)
        }
    }
}
