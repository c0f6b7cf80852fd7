import Foundation

extension SQLSession {
    /// A bound on the integer ids of `table`'s rows dated at or after `moment`, for a table
    /// whose ids rise with its dates (`ledger_entries`: numbered as written, dated when
    /// written): every such row has an id at or above it, so `id >= bound AND date >= moment`
    /// reads the window where a range of a date without an index reads the table whole. A
    /// binary search over the primary key: some 25 lookups for 30 million rows.
    ///
    /// Ids and dates rise together only nearly: a writer dates its rows before it waits for
    /// the write lock, and PostgreSQL's writers on several hosts read several clocks. The
    /// search is for `slack` earlier, which holds as long as no row is dated more than `slack`
    /// after one written later; the rows of that extra stretch are read and their dates decide.
    /// - Parameters:
    ///   - table, column: trusted names (never input), as the stores write them.
    public func firstID(of table: String, datedBy column: String, since moment: Date, slack: TimeInterval)
        async throws -> Int64
    {
        let target = moment.addingTimeInterval(-slack)
        // Two subqueries: each is one step down the key, where `MIN(id), MAX(id)` reads it all.
        guard
            let ends = try await row(
                "SELECT (SELECT MIN(id) FROM \(table)) AS low, (SELECT MAX(id) FROM \(table)) AS high"),
            let low = try ends.get("low", as: Int64?.self), let high = try ends.get("high", as: Int64?.self)
        else { return 0 }
        // The answer is the first row in [lower, upper) dated at or after `target`, else `upper`.
        var lower = low
        var upper = high < .max ? high + 1 : high  // at `.max` the last row is the answer's default
        while lower < upper {
            // The difference as unsigned: it fits whatever the ids' signs, and so does its half.
            let middle = lower + Int64(UInt64(bitPattern: upper &- lower) / 2)
            let next = try await row(
                "SELECT id, \(column) AS dated FROM \(table) WHERE id >= ? ORDER BY id LIMIT 1", [middle])
            guard let next, case let id = try next.get("id", as: Int64.self), id < upper else {
                upper = middle  // no row in [middle, upper)
                continue
            }
            if try next.get("dated", as: Date.self) < target { lower = id + 1 } else { upper = id }
        }
        return lower
    }

    /// The ids of `table`'s rows dated in `since..<until` are in `low..<high` (``firstID(of:datedBy:since:slack:)``
    /// at both ends: the upper one a slack past `until`, so that no row dated before `until` is
    /// numbered at or after it); `high` is `Int64.max` when no row is dated that late.
    public func idRange(of table: String, datedBy column: String, since: Date, until: Date, slack: TimeInterval)
        async throws -> (low: Int64, high: Int64)
    {
        let low = try await firstID(of: table, datedBy: column, since: since, slack: slack)
        let high = try await firstID(
            of: table, datedBy: column, since: until.addingTimeInterval(2 * slack), slack: slack)
        let last = try await row("SELECT MAX(id) AS id FROM \(table)")?.get("id", as: Int64?.self) ?? 0
        return (low, high > last ? Int64.max : high)
    }
}
