import AppleStore
import ArgumentParser
import Foundation
import PipelineCore

extension IAP.Reconcile {
    /// `iap reconcile --account`: one account against Apple's Transaction History.
    /// - Parameter account: the account as stored (`<app>/<account>` for another app's).
    static func reconcile(
        account: String, dryRun: Bool, json: Bool, settings: PipelineSettings, reconcile: ReconcileSettings
    ) async throws {
        let logger = settings.logger("reconcile")
        let database = try await settings.openDatabase(longWork: true)
        guard let (reconciler, client) = try reconcile.makeAccountReconciler(database: database, logger: logger) else {
            throw missingCredentials
        }
        let report = await reconciler.run(account, dryRun: dryRun)
        await client.shutdown()
        print(json ? try encoded(report) : text(report))
        if report.error != nil { throw ExitCode(1) }
    }

    static let missingCredentials = SettingError(
        variable: "IAP_APPSTORE_PRIVATE_KEY",
        problem: "reconciliation asks the App Store Server API: set it, IAP_APPSTORE_KEY_ID and IAP_APPSTORE_ISSUER_ID")

    static func text(_ report: AccountReconciliationReport) -> String {
        var lines = [
            "reconcile account \(report.accountID)\(report.dryRun ? " (dry run)" : ""): \(report.examined) "
                + "transactions listed by Apple (asked by \(report.asked.joined(separator: ", ")))"
                + ", \(report.missing.count) missing, \(report.fed) fed, \(report.unattributed.count) not the account's"
        ]
        for (title, findings) in [("missing", report.missing), ("not credited here", report.unattributed)]
        where !findings.isEmpty {
            lines.append("  \(title):")
            for finding in findings.prefix(50) {
                lines.append(
                    "    - \(finding.transactionID) \(finding.productID ?? "(no product)") \(finding.reason.rawValue)"
                        + (finding.receiptID.map { " -> receipt \($0)" } ?? ""))
            }
        }
        if report.unreadable > 0 { lines.append("  \(report.unreadable) listed transactions could not be read") }
        if let error = report.error { lines.append("error: \(error)") }
        return lines.joined(separator: "\n")
    }

    static func encoded(_ report: some Encodable) throws -> String {
        let encoder = WireCoding.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }
}
