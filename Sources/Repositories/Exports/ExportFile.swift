import Foundation
import PipelineCore

/// A ledger as files a warehouse takes, the same from `iap export` and from
/// `GET /v1/exports/...`: CSV (RFC 4180, a header line first) or NDJSON (one JSON object per
/// line), a line per entry in ledger order. The `id` column is the cursor a run resumes after.
public enum ExportFormat: String, Sendable, CaseIterable {
    case csv, ndjson

    /// The media type of a file of this format.
    public var mediaType: String { self == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson" }
}

/// What a reader calls an entry's app and account: an operator the apps' ids and the stored
/// account ids; an app's backend its own ids.
public struct ExportNaming: Sendable {
    public var app: @Sendable (_ key: String) -> String
    public var account: @Sendable (_ stored: String) -> String

    public init(app: @escaping @Sendable (String) -> String, account: @escaping @Sendable (String) -> String) {
        self.app = app
        self.account = account
    }
}

/// One exported entry: its cursor and its values, in the header's order.
public struct ExportLine: Sendable {
    public var id: Int64
    public var values: [String]
}

/// Where an export's span lies in a ledger's key: its entries' ids are in `low..<high`
/// (``SQLSession/idRange(of:datedBy:since:until:slack:)``), found once per export rather than
/// once per page.
public struct ExportIDs: Hashable, Sendable {
    public var low: Int64
    public var high: Int64

    public init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }

    /// The first id a page after `cursor` reads; nil when nothing can follow it (a cursor is
    /// the caller's input: the last id there can be has no next).
    public func first(after cursor: Int64) -> Int64? {
        cursor < .max ? max(low, cursor + 1) : nil
    }
}

/// A ledger an export reads: its columns, and a page of its entries after a cursor.
public protocol ExportedLedger: Sendable {
    /// Its name on the command line and in the API's path (`revenue`, `ledger`).
    static var name: String { get }
    static var header: [String] { get }
    /// Columns written as JSON numbers, and as JSON booleans, in NDJSON.
    static var numbers: Set<String> { get }
    static var booleans: Set<String> { get }

    /// Where the entries written in `since..<until` lie in the ledger's key.
    func ids(since: Date, until: Date) async throws -> ExportIDs

    /// The entries after `cursor` written in `since..<until` (of `app`, when given), at most
    /// `limit`, in ledger order; `ids` is what ``ids(since:until:)`` found for that span.
    func lines(
        after cursor: Int64, within ids: ExportIDs, since: Date, until: Date, app: AppScope?, limit: Int,
        naming: ExportNaming
    ) async throws -> [ExportLine]
}

extension ExportedLedger {
    /// One page of the span, its ids found for it alone (a caller reading one page).
    public func lines(after cursor: Int64, since: Date, until: Date, app: AppScope?, limit: Int, naming: ExportNaming)
        async throws -> [ExportLine]
    {
        try await lines(
            after: cursor, within: try await ids(since: since, until: until), since: since, until: until, app: app,
            limit: limit, naming: naming)
    }

    /// The CSV header line, with its line break.
    public static var headerLine: String { header.joined(separator: ",") + "\n" }

    /// One entry as a line of `format`, with its line break.
    public static func text(_ line: ExportLine, _ format: ExportFormat) -> String {
        switch format {
        case .csv:
            return line.values.map(CSVField.quoted).joined(separator: ",") + "\n"
        case .ndjson:
            var object: [String: Any] = [:]
            for (name, value) in zip(header, line.values) where !value.isEmpty {
                if numbers.contains(name) {
                    object[name] = Int64(value) as Any
                } else if booleans.contains(name) {
                    object[name] = value == "true"
                } else {
                    object[name] = value
                }
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }
}

public enum ExportSpan {
    /// A day (UTC midnight: `2026-11-01`) or an ISO 8601 moment (`2026-11-01T08:00:00Z`, an
    /// offset `+01:00`); nil for anything else, as the API's contract says (docs/openapi.yaml).
    public static func moment(_ text: String) -> Date? {
        guard text.utf8.count <= 64,
            (try? /[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]+(Z|[+-][0-9]{2}:[0-9]{2}))?/.wholeMatch(in: text)) != nil
        else { return nil }
        if let day = try? Date(text, strategy: .iso8601.year().month().day()) { return day }
        return try? Date(text, strategy: .iso8601)
    }
}
