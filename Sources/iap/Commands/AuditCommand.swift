import ArgumentParser
import Foundation
import PipelineCore
import Store

extension IAP {
    /// Checks the books: exits 0 when they balance, 1 with a report when they do not.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check that every balance equals the sum of its ledger entries, that no Apple transaction was credited or refunded twice, and that every final receipt has its webhook row."
        )

        @Flag(help: "Print the findings as JSON.") var json = false

        func run() async throws {
            let settings = try PipelineSettings()
            // An audit reads; it must not create an empty database where none was.
            guard settings.postgres != nil || FileManager.default.fileExists(atPath: settings.databasePath) else {
                throw SettingError(variable: "IAP_DB_PATH", problem: "no database at \(settings.databasePath)")
            }
            let findings = try await LedgerStore(settings.openDatabase()).audit()
            if json {
                let encoder = WireCoding.encoder()
                encoder.outputFormatting.insert(.prettyPrinted)
                print(String(decoding: try encoder.encode(findings), as: UTF8.self))
            } else if findings.isEmpty {
                print("audit: \(settings.databaseDescription): the books balance")
            } else {
                print(
                    "audit: \(settings.databaseDescription): \(findings.count) finding\(findings.count == 1 ? "" : "s")"
                )
                for (kind, group) in Dictionary(grouping: findings, by: \.kind).sorted(by: {
                    $0.key.rawValue < $1.key.rawValue
                }) {
                    print("\n  \(kind.rawValue) (\(group.count))")
                    for finding in group.prefix(50) { print("    - \(finding.detail)") }
                    if group.count > 50 { print("    … and \(group.count - 50) more (use --json for all)") }
                }
            }
            if !findings.isEmpty { throw ExitCode(1) }
        }
    }
}
