import DatabasePostgres
import Drills
import Foundation
import Logging

/// A real PostgreSQL primary (`pg1`, 10.77.0.21) and its synchronous streaming standby (`pg2`,
/// 10.77.0.22), each in a network namespace of its own, built by `scripts/cluster-postgres.sh`
/// for the failover tests. Needs root and PostgreSQL 15's programs; the tests that use it run
/// in the pass of tests that need the machine alone (`IAP_TEST_ALONE=1`).
public struct PostgresCluster: Sendable {
    /// Both servers, the one to write to found as libpq's `target_session_attrs=read-write` would.
    public static let url =
        "postgres://iap_test:iap-test-only@10.77.0.21:5432,10.77.0.22:5432/iap?sslmode=disable"
        + "&target_session_attrs=read-write"

    public static let location = try! PostgresLocation(url: url)

    /// One server alone, used as it is (a standby too): for checking what it holds.
    public static func only(_ server: String) -> PostgresLocation {
        try! PostgresLocation(url: "postgres://iap_test:iap-test-only@\(address(server)):5432/iap?sslmode=disable")
    }

    public static func address(_ server: String) -> String { server == "pg1" ? "10.77.0.21" : "10.77.0.22" }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/cluster-postgres.sh")

    /// Whether this machine can build it: root, `ip` and PostgreSQL 15's server programs.
    public static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/pg_rewind")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
    }

    /// Builds the cluster, runs `body`, and tears the cluster down whether `body` threw or not
    /// (`down` also clears what an earlier, crashed run left).
    public static func with<T>(_ body: (PostgresCluster) async throws -> T) async throws -> T {
        let cluster = PostgresCluster()
        let result: Result<T, any Error>
        do {
            try await cluster.run("up")
            result = .success(try await body(cluster))
        } catch {
            result = .failure(error)
        }
        _ = try? await cluster.run("down")
        return try result.get()
    }

    /// Stops `server` hard: `pg_ctl stop -m immediate`, no checkpoint, every session cut.
    public func kill(_ server: String) async throws { try await run("kill", server) }

    /// Promotes the standby `server`; it accepts writes alone until the other rejoins.
    public func promote(_ server: String) async throws { try await run("promote", server) }

    /// Makes the stopped `server` the synchronous standby of the other (pg_rewind).
    public func rejoin(_ server: String) async throws { try await run("rejoin", server) }

    /// Each server's state: `pg1 10.77.0.21 primary` …
    public func status() async throws -> String { try await run("status") }

    @discardableResult
    func run(_ arguments: String...) async throws -> String {
        let outcome = try await ChildProcess.run(Self.script, arguments)
        guard outcome.status == 0 else {
            throw ClusterError(
                description: "cluster-postgres.sh \(arguments.joined(separator: " ")): \(outcome.output)")
        }
        return outcome.output
    }
}

struct ClusterError: Error, CustomStringConvertible {
    let description: String
}
