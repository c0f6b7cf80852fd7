import Database
import PipelineCore
import Repositories
import SettlementWriter

/// The audit's findings by app: each finding counts under the app of its account (a
/// transaction found on accounts of two apps, under the first).
struct AuditByApp {
    var apps: AppDirectory
    var findings: [AuditFinding]

    /// `scope`'s findings.
    func findings(of scope: AppScope) -> [AuditFinding] {
        findings.filter { finding in finding.accountID.map { scope.shown($0) != nil } ?? false }
    }

    /// One line per app saying whether its books are clean, and the findings of no app.
    var summary: String {
        var lines = apps.scopes.map { scope in
            let count = findings(of: scope).count
            return "  \(scope.id ?? AppDirectory.singleAppName): "
                + (count == 0 ? "clean" : "\(count) finding\(count == 1 ? "" : "s")")
        }
        let unowned = findings.filter { $0.accountID.flatMap(apps.appID(of:)) == nil }.count
        if unowned > 0 { lines.append("  of no app in IAP_APPS: \(unowned) finding\(unowned == 1 ? "" : "s")") }
        return lines.joined(separator: "\n")
    }
}
