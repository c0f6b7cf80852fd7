import ArgumentParser
import Database
import Foundation
import Observability
import PipelineCore
import Repositories
import SettlementWriter

extension IAP {
    /// Checks the books: exits 0 when they balance, 1 with a report when they do not.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check that every balance equals the sum of its ledger entries, that no Apple transaction was credited or refunded twice, and that every final receipt has its webhook row."
        )

        @Flag(help: "Print the findings as JSON.") var json = false
        /// Every app's books by default, each said clean or not.
        @OptionGroup var app: AppOption
        @Option(
            help:
                "Also write the findings' count and this run's time to this file, in Prometheus' text format, for node_exporter's textfile collector."
        ) var metricsFile: String?

        func run() async throws {
            let settings = try PipelineSettings()
            // An audit reads; it must not create an empty database where none was.
            guard settings.postgres != nil || FileManager.default.fileExists(atPath: settings.databasePath) else {
                throw SettingError(variable: "IAP_DB_PATH", problem: "no database at \(settings.databasePath)")
            }
            let scope = try app.scope(in: settings.appDirectory)
            let books = AuditByApp(
                apps: settings.appDirectory,
                findings: try await LedgerRepository(settings.openDatabase(longWork: true)).audit())
            let findings = scope.map(books.findings(of:)) ?? books.findings
            let place = settings.databaseDescription + (scope?.id.map { ", app \($0)" } ?? "")
            if let metricsFile { try Self.write(findings: findings.count, to: metricsFile) }
            if json {
                let encoder = WireCoding.encoder()
                encoder.outputFormatting.insert(.prettyPrinted)
                print(String(decoding: try encoder.encode(findings), as: UTF8.self))
            } else if findings.isEmpty {
                print("audit: \(place): the books balance")
            } else {
                print("audit: \(place): \(findings.count) finding\(findings.count == 1 ? "" : "s")")
                for (kind, group) in Dictionary(grouping: findings, by: \.kind).sorted(by: {
                    $0.key.rawValue < $1.key.rawValue
                }) {
                    print("\n  \(kind.rawValue) (\(group.count))")
                    for finding in group.prefix(50) { print("    - \(finding.detail)") }
                    if group.count > 50 { print("    … and \(group.count - 50) more (use --json for all)") }
                }
            }
            if !json, scope == nil, settings.appDirectory.hasApps { print(books.summary) }
            if !findings.isEmpty { throw ExitCode(1) }
        }

        /// Replaced whole (written beside it, then renamed) so that a collector never reads
        /// half a file. An audit that could not run leaves the old file, whose time then
        /// ages: the alert on it says the audit stopped.
        static func write(findings: Int, to path: String) throws {
            let text = """
                # HELP \(MetricName.auditFindings) Findings of the last iap audit (0: the books balance).
                # TYPE \(MetricName.auditFindings) gauge
                \(MetricName.auditFindings) \(findings)
                # HELP \(MetricName.auditCompleted) When iap audit last ran to the end, in Unix seconds.
                # TYPE \(MetricName.auditCompleted) gauge
                \(MetricName.auditCompleted) \(Int(Date().timeIntervalSince1970))

                """
            let temporary = path + ".tmp"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                throw SettingError(variable: "--metrics-file", problem: "cannot rename \(temporary) to \(path)")
            }
        }
    }
}
