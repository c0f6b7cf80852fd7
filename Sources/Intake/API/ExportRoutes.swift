import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PipelineCore
import Repositories

/// `GET /v1/exports/revenue`, `/v1/exports/ledger` and `/v1/exports/subscriptions`: the revenue
/// ledger, the coin ledger and the subscriptions' periods of the token's app, for a warehouse's scheduled job, as `iap export` writes them
/// (``ExportedLedger``): the entries written in `[since, until)`, after the cursor `after`, as
/// CSV or NDJSON. The answer is streamed a page at a time, so its memory does not grow with the
/// span; a job resumes a broken download with `after` set to the last `id` it kept. Another
/// app's entries are never read, and accounts are named in the app's own ids.
struct ExportRoutes: Sendable {
    let revenue: RevenueExport
    let ledger: LedgerExport
    let subscriptions: SubscriptionExport
    /// Entries per page read from the database.
    var pageSize = 1000

    func register(on v1: RouterGroup<some AppRequestContext>) {
        v1.get("exports/revenue") { request, context in
            try await self.export(revenue, request, app: context.app)
        }
        v1.get("exports/ledger") { request, context in
            try await self.export(ledger, request, app: context.app)
        }
        v1.get("exports/subscriptions") { request, context in
            try await self.export(subscriptions, request, app: context.app)
        }
    }

    private func export<Ledger: ExportedLedger>(_ exported: Ledger, _ request: Request, app: AppScope)
        async throws -> Response
    {
        let query = request.uri.queryParameters
        func moment(_ name: String) throws(APIError) -> Date {
            guard let text = query.get(name) else {
                throw APIError.invalid(
                    "invalid_export", "\(name) is required: a day (2026-11-01) or an ISO 8601 moment", field: name)
            }
            guard let date = ExportSpan.moment(String(text)) else {
                throw APIError.invalid(
                    "invalid_export", "\(name) must be a day (2026-11-01) or an ISO 8601 moment", field: name)
            }
            return date
        }
        let (since, until) = (try moment("since"), try moment("until"))
        guard since < until else {
            throw APIError.invalid("invalid_export", "since must be before until", field: "since")
        }
        let requested = query.get("format").map { String($0) } ?? ExportFormat.csv.rawValue
        guard let format = ExportFormat(rawValue: requested) else {
            throw APIError.invalid("invalid_export", "format must be csv or ndjson", field: "format")
        }
        // From the first entry there can be (a back-filled one's id is negative), or after one.
        var after: Int64 = .min
        if let text = query.get("after") {
            guard let cursor = Int64(String(text)) else {
                throw APIError.invalid("invalid_export", "after must be the id of an exported entry", field: "after")
            }
            after = cursor
        }
        // The app's own names: its id, and its accounts as its backend sent them.
        let appID = app.id ?? AppDirectory.singleAppName
        let naming = ExportNaming(app: { _ in appID }, account: { AppScope.bare($0) })
        // The first page before the answer starts: a database that cannot answer is a 503,
        // not a 200 cut short.
        let (ids, first): (ExportIDs, [ExportLine])
        do {
            // Where the span lies in the key, found once for the whole download.
            ids = try await exported.ids(since: since, until: until)
            first = try await exported.lines(
                after: after, within: ids, since: since, until: until, app: app, limit: pageSize, naming: naming)
        } catch {
            throw APIError.unavailable(error)
        }
        let (pageSize, header) = (pageSize, query.get("after") == nil)
        var headers = HTTPFields()
        headers[.contentType] = format.mediaType
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            var page = first
            if format == .csv, header { try await writer.write(ByteBuffer(string: Ledger.headerLine)) }
            while let last = page.last {
                try await writer.write(ByteBuffer(string: page.map { Ledger.text($0, format) }.joined()))
                page = try await exported.lines(
                    after: last.id, within: ids, since: since, until: until, app: app, limit: pageSize, naming: naming)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
