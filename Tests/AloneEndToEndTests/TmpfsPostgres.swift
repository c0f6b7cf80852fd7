import Drills
import Foundation

/// A PostgreSQL 15 server of one test's own, its data on one small tmpfs and its WAL on
/// another (``TmpfsVolume``), so that either can be filled: 127.0.0.1 on a spare port, trust
/// on loopback, user postgres, database `iap`. Its log and socket stay on the ordinary disk,
/// where an operator's are. Needs root (mounts, `runuser`).
struct TmpfsPostgres {
    let data: TmpfsVolume
    let wal: TmpfsVolume
    /// The socket directory and the server's log: not on a volume that fills.
    let home: String
    let port: Int

    static let bin = "/usr/lib/postgresql/15/bin"

    var url: String { "postgres://postgres@127.0.0.1:\(port)/iap?sslmode=disable" }
    var directory: String { data.path + "/pgdata" }
    var logPath: String { home + "/server.log" }

    /// initdb (1 MB WAL segments, so that the WAL volume can be small), then starts it and
    /// makes the database `iap`.
    static func start(dataMegabytes: Int = 64, walMegabytes: Int = 32) async throws -> TmpfsPostgres {
        let data = try TmpfsVolume(megabytes: dataMegabytes)
        let wal = try TmpfsVolume(megabytes: walMegabytes)
        let home = NSTemporaryDirectory() + "iap-pg-\(UUID().uuidString.prefix(8))"
        let server = TmpfsPostgres(data: data, wal: wal, home: home, port: LoopbackPort.free())
        do {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try await run("/bin/chown", ["postgres:postgres", home])
            try await server.asPostgres(
                "initdb", "-D", server.directory, "-X", wal.path + "/pg_wal", "-U", "postgres", "--auth=trust",
                "-E", "UTF8", "--locale=C.UTF-8", "--wal-segsize=1", "--no-sync")
            // No checkpoint recycles segments during the test: WAL that outgrows the files it
            // has must create one, which a full WAL volume refuses.
            let settings = """
                listen_addresses = '127.0.0.1'
                port = \(server.port)
                unix_socket_directories = '\(home)'
                min_wal_size = 2MB
                max_wal_size = 1GB
                checkpoint_timeout = 1h
                """
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: server.directory + "/postgresql.conf"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(("\n" + settings + "\n").utf8))
            try handle.close()
            try await server.start()
            _ = try await server.sql("CREATE DATABASE iap", database: "postgres")
            return server
        } catch {
            await server.destroy()
            throw error
        }
    }

    /// `pg_ctl start`, as systemd would after a crash: waits until it accepts connections.
    func start() async throws {
        try await asPostgres("pg_ctl", "-D", directory, "-l", logPath, "-w", "-t", "60", "start")
    }

    /// Whether the postmaster runs (`pg_ctl status`).
    func isRunning() async -> Bool {
        (try? await asPostgres("pg_ctl", "-D", directory, "status")) != nil
    }

    /// `psql -c sql` over the socket; its output.
    func sql(_ sql: String, database: String = "iap") async throws -> String {
        try await asPostgres(
            "psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", home, "-p", "\(port)", "-U", "postgres", "-d",
            database, "-c", sql)
    }

    /// Fills WAL segments until PostgreSQL must create a new one: a transaction's commit
    /// record, then a switch to the next segment, a few dozen times. On a full WAL volume
    /// the server PANICs (this session's connection ends with it, hence no throw).
    func switchWALSegments(_ count: Int = 40) async {
        let statements = (0..<count).flatMap { _ in ["-c", "SELECT txid_current()", "-c", "SELECT pg_switch_wal()"] }
        _ = try? await Self.run(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", Self.bin + "/psql", "-X", "-q", "-At", "-h", home, "-p", "\(port)", "-U",
                "postgres", "-d", "iap",
            ] + statements)
    }

    /// The last lines of the server's log.
    func logTail(_ lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        // Statements are logged whole: a line's first 200 characters say enough.
        return text.split(separator: "\n").suffix(lines).map { $0.prefix(200) }.joined(separator: "\n")
    }

    /// Stops the server hard (if it runs) and removes everything: volumes, log, socket.
    func destroy() async {
        if await isRunning() { _ = try? await asPostgres("pg_ctl", "-D", directory, "-m", "immediate", "-w", "stop") }
        data.unmount()
        wal.unmount()
        try? FileManager.default.removeItem(atPath: home)
    }

    @discardableResult
    private func asPostgres(_ program: String, _ arguments: String...) async throws -> String {
        try await Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", Self.bin + "/" + program] + arguments)
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        // Not Foundation's Process: the postmaster pg_ctl leaves behind must inherit no
        // descriptor of this process (ChildProcess closes them).
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: executable), arguments)
        guard outcome.status == 0 else { throw Failed(command: "\(executable) \(arguments)", output: outcome.output) }
        return outcome.output
    }

    struct Failed: Error, CustomStringConvertible {
        var command: String
        var output: String
        var description: String { "\(command) failed: \(output.suffix(800))" }
    }
}
