import AppleStore
import ArgumentParser
import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

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

                With --account, compares that account's Apple purchases with Apple's Transaction \
                History instead: a purchase tied to the account (one of its app account tokens, or a \
                subscription it owns) that was never recorded here, or that Apple refunded while it is \
                still credited here, is posted for the account as a signed transaction and goes through \
                the pipeline like any other; purchases with no tie to the account are reported, never \
                credited to it.
                """)

        @Option(help: "Start of the window: 7d, 36h, 90m ago, or an ISO 8601 date; at most 180 days back (7d).")
        var since: String?
        @Option(help: "End of the window (the same forms); now by default.") var until: String?
        @Option(help: "Compare this account's Apple purchases with Apple's Transaction History.")
        var account: String?
        @Option(
            help: """
                The app of IAP_APPS to reconcile: its App Store key asks, within its call budgets, from its \
                own last run; --account is its account. The default app without it.
                """)
        var app: String?
        @Flag(help: "Only report what is missing; store nothing.") var dryRun = false
        @Flag(help: "Print the report as JSON.") var json = false

        func validate() throws {
            if account != nil, since != nil || until != nil {
                throw ValidationError(
                    "--account compares the account's whole history: --since and --until do not apply")
            }
            if let account, account.isEmpty || account.utf8.count > 128 {
                throw ValidationError("--account must be an account id of 1 to 128 characters")
            }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let logger = settings.logger("reconcile")
            let scope = try AppOption.scope(app, in: settings.appDirectory) ?? settings.appDirectory.scopes[0]
            var reconcile = try ReconcileSettings(
                environment: settings.environment(of: scope),
                verifier: VerifierSettings(environment: settings.environment(of: scope)))
            reconcile.app = scope
            if let account {
                try await Self.reconcile(
                    account: scope.stored(account), dryRun: dryRun, json: json, settings: settings, reconcile: reconcile
                )
                return
            }
            let now = Date()
            let window = try ReconciliationWindow.requested(
                since: ReconciliationWindow.parse(since ?? "7d", now: now),
                until: until.map { text throws(ReconciliationError) in try ReconciliationWindow.parse(text, now: now) },
                now: now)
            let database = try await settings.openDatabase(longWork: true)
            guard let (reconciler, client) = try reconcile.makeReconciler(database: database, logger: logger) else {
                throw Self.missingCredentials
            }
            let report = await reconciler.run(window, trigger: .operator, dryRun: dryRun)
            await client.shutdown()
            print(json ? try Self.encoded(report) : Self.text(report))
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

    }
}
