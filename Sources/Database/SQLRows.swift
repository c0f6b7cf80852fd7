/// How rows are cut into statements.
///
/// A statement over many rows has a shape per row count: `VALUES (?, ?), (?, ?)` is not
/// `VALUES (?, ?)`. SQLite's connection prepares each shape once and keeps it for good (GRDB's
/// statement cache), so a shape per batch size grew a fulfiller by the megabytes a batch size
/// (305 MB after 40,000 receipts, BENCHMARKS.md, issue 29). On SQLite the rows are therefore
/// cut into chunks whose sizes are powers of two, and lookups are padded to one: a kind of
/// statement comes in a dozen shapes at most. PostgreSQL keeps no prepared statement between
/// calls: there a chunk is as big as its arguments allow, one round trip.
public enum SQLRows {
    /// The most values bound to one statement: SQLite takes 32,766, PostgreSQL 65,535.
    public static let maximumArguments = 30_000

    /// `(?, ?), (?, ?)`: `rows` rows of `width` placeholders.
    public static func placeholders(rows: Int, width: Int) -> String {
        let row = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        return Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// `rows` in chunks that fit one statement's arguments, in order; on SQLite each a power
    /// of two, the largest first (13 rows are statements of 8, 4 and 1).
    public static func chunks<Row>(_ rows: [Row], width: Int, dialect: SQLDialect) -> [ArraySlice<Row>] {
        let most = mostRows(width: width, dialect: dialect)
        var chunks: [ArraySlice<Row>] = []
        var start = rows.startIndex
        while start < rows.endIndex {
            let left = rows.endIndex - start
            let size =
                dialect == .sqlite ? min(most, 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)) : min(most, left)
            chunks.append(rows[start..<start + size])
            start += size
        }
        return chunks
    }

    /// `rows` in chunks that fit one statement's arguments, for a lookup: an `IN` list or
    /// `VALUES` joined to read, which a repeated row changes nothing in. On SQLite each chunk
    /// is padded to a power of two by repeating its last row, so that it stays one statement.
    public static func lookupChunks<Row>(_ rows: [Row], width: Int, dialect: SQLDialect) -> [[Row]] {
        let most = mostRows(width: width, dialect: dialect)
        return stride(from: 0, to: rows.count, by: most).map { start in
            padded(Array(rows[start..<min(start + most, rows.count)]), dialect: dialect)
        }
    }

    /// The rows of a lookup that fits one statement, on SQLite padded to a power of two by
    /// repeating the last (3 rows are 4, 5 are 8).
    public static func padded<Row>(_ rows: [Row], dialect: SQLDialect) -> [Row] {
        guard dialect == .sqlite, rows.count > 1, let last = rows.last else { return rows }
        let shape = 1 << (Int.bitWidth - (rows.count - 1).leadingZeroBitCount)
        return rows + repeatElement(last, count: shape - rows.count)
    }

    /// The most rows of `width` values one statement takes: on SQLite a power of two.
    private static func mostRows(width: Int, dialect: SQLDialect) -> Int {
        let most = max(1, maximumArguments / max(1, width))
        return dialect == .sqlite ? 1 << (Int.bitWidth - 1 - most.leadingZeroBitCount) : most
    }
}
