import Foundation

/// PostgreSQL's server processes on this machine, told apart by the titles they set
/// (`postgres: 15/main: iap_test bench_r2 127.0.0.1(51234) idle`): on a shared server,
/// other databases' backends are someone else's work, not the benchmark's.
enum PostgresProcesses {
    /// Whose work a process does.
    enum Owner: Equatable {
        /// A backend (or autovacuum worker) of the benchmark's database.
        case database
        /// The postmaster, the writers and the launchers: the server's, shared by every database.
        case server
        /// Another database's backend.
        case others
    }

    /// The `postgres` processes doing `database`'s and the server's work, and the rest.
    static func pids(of database: String) -> (ours: [Int32], others: [Int32]) {
        var ours: [Int32] = []
        var others: [Int32] = []
        for (pid, title) in ProcessUsage.commandLines(named: "postgres") {
            if owner(title: title, database: database) == .others { others.append(pid) } else { ours.append(pid) }
        }
        return (ours, others)
    }

    /// Whose work the process titled `title` (its command line) does.
    static func owner(title: String, database: String) -> Owner {
        let words = title.replacingOccurrences(of: "\0", with: " ").split(separator: " ").map(String.init)
        // The postmaster keeps its command line: `/usr/lib/postgresql/15/bin/postgres -D ...`.
        guard words.first == "postgres:" else { return .server }
        // Debian names the cluster first (`15/main:`), when cluster_name is set.
        let rest = words.dropFirst().drop { $0.hasSuffix(":") }
        if rest.starts(with: ["autovacuum", "worker"]) { return rest.last == database ? .database : .others }
        // A backend: user, database, then its client (`127.0.0.1(51234)`, `[local]`).
        let fields = Array(rest)
        guard fields.count >= 3, fields[2].hasSuffix(")") || fields[2] == "[local]" else { return .server }
        return fields[1] == database ? .database : .others
    }
}
