import Drills
import Foundation

/// A PostgreSQL 15 server of one test's own (``PostgresServer``), its data on one small
/// tmpfs and its WAL on another (``TmpfsVolume``), so that either can be filled.
struct TmpfsPostgres {
    let data: TmpfsVolume
    let wal: TmpfsVolume
    let server: PostgresServer

    var url: String { server.url }

    /// initdb (1 MB WAL segments, so that the WAL volume can be small), then starts it and
    /// makes the database `iap`.
    static func start(dataMegabytes: Int = 64, walMegabytes: Int = 32) async throws -> TmpfsPostgres {
        let data = try TmpfsVolume(megabytes: dataMegabytes)
        let wal = try TmpfsVolume(megabytes: walMegabytes)
        do {
            // No checkpoint recycles segments during the test: WAL that outgrows the files it
            // has must create one, which a full WAL volume refuses.
            let server = try await PostgresServer.create(
                directory: data.path + "/pgdata", initdb: ["-X", wal.path + "/pg_wal", "--wal-segsize=1", "--no-sync"],
                settings: """
                    min_wal_size = 2MB
                    max_wal_size = 1GB
                    checkpoint_timeout = 1h
                    """)
            return TmpfsPostgres(data: data, wal: wal, server: server)
        } catch {
            data.unmount()
            wal.unmount()
            throw error
        }
    }

    /// `pg_ctl start`, as systemd would after a crash: waits until it accepts connections.
    func start() async throws { try await server.start() }

    /// Whether the postmaster runs.
    func isRunning() async -> Bool { await server.isRunning() }

    /// Fills WAL segments until PostgreSQL must create a new one: a transaction's commit
    /// record, then a switch to the next segment, a few dozen times. On a full WAL volume
    /// the server PANICs (this session's connection ends with it, hence no throw).
    func switchWALSegments(_ count: Int = 40) async {
        let statements = (0..<count).flatMap { _ in ["-c", "SELECT txid_current()", "-c", "SELECT pg_switch_wal()"] }
        _ = try? await server.asPostgres(
            ["psql", "-X", "-q", "-At", "-h", server.home, "-p", "\(server.port)", "-U", "postgres", "-d", "iap"]
                + statements)
    }

    /// The last lines of the server's log.
    func logTail(_ lines: Int = 30) -> String { server.logTail(lines) }

    /// Stops the server hard (if it runs) and removes everything: volumes, log, socket.
    func destroy() async {
        await server.destroy()
        data.unmount()
        wal.unmount()
    }
}
