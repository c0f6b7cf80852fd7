import ArgumentParser
import Database
import Foundation
import PipelineCore
import Repositories

extension IAP {
    /// `iap export`: the pipeline's own ledgers as files a warehouse takes.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stream a ledger as CSV or NDJSON, page by page, resumable by cursor.",
            subcommands: [ExportRevenue.self, ExportLedger.self, ExportSubscriptions.self])
    }

    /// `iap export revenue`: the revenue ledger's entries of a span of time (docs/revenue.md).
    struct ExportRevenue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revenue",
            abstract: "Stream the revenue ledger's entries written in [--since, --until) to standard output.",
            discussion: """
                Amounts are whole minor units of the entry's currency (minor_unit_digits says how many digits: \
                JPY 0, USD 2, KWD 3); sums are per currency. \(ExportOptions.paging)
                """)

        @OptionGroup var options: ExportOptions

        func validate() throws { try options.check() }

        func run() async throws {
            try await options.export { RevenueExport(RevenueRepository($0)) }
        }
    }

    /// `iap export ledger`: the coin ledger's entries of a span of time.
    struct ExportLedger: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ledger",
            abstract: "Stream the coin ledger's entries written in [--since, --until) to standard output.",
            discussion: """
                Every credit and debit of a currency the catalog grants (purchases, refunds, revocations, \
                reversals, adjustments, write-offs), with the transaction, receipt or notification that caused \
                it. \(ExportOptions.paging)
                """)

        @OptionGroup var options: ExportOptions

        func validate() throws { try options.check() }

        func run() async throws {
            try await options.export { LedgerExport($0) }
        }
    }
}

extension IAP {
    /// `iap export subscriptions`: the subscriptions' periods of a span of time.
    struct ExportSubscriptions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscriptions",
            abstract: "Stream the subscriptions' periods written in [--since, --until) to standard output.",
            discussion: """
                Each period of an auto-renewable product on the revenue ledger (a first period, paid or a free \
                trial, or a renewal): when it starts and ends, what it cost, and that price scaled to a month \
                (monthly_recurring), for drawing subscribers and recurring revenue over time. \(ExportOptions.paging)
                """)

        @OptionGroup var options: ExportOptions

        func validate() throws { try options.check() }

        func run() async throws {
            try await options.export { SubscriptionExport($0) }
        }
    }
}

/// The span, format, cursor and app of an export, and the loop that writes it.
struct ExportOptions: ParsableArguments {
    static let paging = """
        Read a page of 1000 at a time, in ledger order: standard error says the cursor of the last entry \
        written, and --after CURSOR resumes after it (without the CSV header), so that a warehouse can take a \
        daily file and pick up where it stopped.
        """

    @Option(help: "From this day (YYYY-MM-DD, UTC) or moment (ISO 8601).") var since: String
    @Option(help: "Until this day or moment, not included.") var until: String
    @Option(help: "csv or ndjson.") var format: ExportFormat = .csv
    @Option(help: "Resume after the entry with this id (the cursor a run printed).") var after: Int64?
    @OptionGroup var app: AppOption

    func check() throws {
        let (start, end) = (try Self.moment(since, "--since"), try Self.moment(until, "--until"))
        guard start < end else { throw ValidationError("--since must be before --until") }
    }

    /// Writes the ledger `open` reads from the pipeline's database to standard output.
    func export<Ledger: ExportedLedger>(_ open: (any SQLDatabase) -> Ledger) async throws {
        let settings = try PipelineSettings()
        guard settings.postgres != nil || FileManager.default.fileExists(atPath: settings.databasePath) else {
            throw SettingError(variable: "IAP_DB_PATH", problem: "no database at \(settings.databasePath)")
        }
        let scope = try app.scope(in: settings.appDirectory)
        let ledger = open(try await settings.openDatabase(longWork: true))
        let (start, end) = (try Self.moment(since, "--since"), try Self.moment(until, "--until"))
        let directory = settings.appDirectory
        // Operators read every app's rows: the apps' ids, the stored account ids.
        let naming = ExportNaming(app: { directory.appID(ofKey: $0) }, account: { $0 })
        let output = FileHandle.standardOutput
        let showsProgress = isatty(STDERR_FILENO) == 1
        if format == .csv, after == nil { output.write(Data(Ledger.headerLine.utf8)) }
        // From the first entry there can be: a back-filled one's id is negative (docs/revenue.md).
        var (cursor, written) = (after ?? .min, 0)
        // Where the span lies in the key, found once: each page is then one range read.
        let ids = try await ledger.ids(since: start, until: end)
        while true {
            let page = try await ledger.lines(
                after: cursor, within: ids, since: start, until: end, app: scope, limit: 1000, naming: naming)
            guard let last = page.last else { break }
            output.write(Data(page.map { Ledger.text($0, format) }.joined().utf8))
            (cursor, written) = (last.id, written + page.count)
            if showsProgress { FileHandle.standardError.write(Data("\rexport: \(written) entries".utf8)) }
        }
        let carriage = showsProgress ? "\r" : ""
        FileHandle.standardError.write(
            Data("\(carriage)export: \(written) entries, cursor \(cursor) (resume with --after \(cursor))\n".utf8))
    }

    /// A day (UTC midnight) or an ISO 8601 moment. - Throws: `ValidationError` naming `option`.
    static func moment(_ text: String, _ option: String) throws -> Date {
        guard let moment = ExportSpan.moment(text) else {
            throw ValidationError("\(option): '\(text.prefix(40))' is not a day (2026-11-01) or an ISO 8601 moment")
        }
        return moment
    }
}

extension ExportFormat: ExpressibleByArgument {}
