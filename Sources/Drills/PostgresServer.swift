import Foundation
import Synchronization

/// A PostgreSQL 15 server of a drill's own (Debian's binaries), its data directory wherever
/// the drill wants it (a small tmpfs that fills, a volume that loses unsynced writes):
/// 127.0.0.1 on a spare port, trust on loopback, user postgres, database `iap`. Its log and
/// socket stay in `home` on the ordinary disk, where an operator's are. Needs root (it runs
/// the server as the postgres user).
///
/// The postmaster is this process's child, not `pg_ctl`'s orphan: a SIGKILLed orphan stays a
/// zombie where PID 1 reaps nothing (these machines' own), and PostgreSQL then refuses to
/// start over "another postmaster", which no machine shows after a real power cut.
public final class PostgresServer: Sendable {
    /// The data directory.
    public let directory: String
    /// The socket directory and the server's log.
    public let home: String
    public let port: Int
    private let postmaster = Mutex<SpawnedProcess?>(nil)

    init(directory: String, home: String, port: Int) {
        (self.directory, self.home, self.port) = (directory, home, port)
    }

    public static let bin = "/usr/lib/postgresql/15/bin"

    public var url: String { "postgres://postgres@127.0.0.1:\(port)/iap?sslmode=disable" }
    public var logPath: String { home + "/server.log" }

    public struct Failed: Error, CustomStringConvertible {
        public var command: String
        public var output: String
        public var description: String { "\(command) failed: \(output.suffix(800))" }
    }

    /// initdb into `directory` (which must not exist yet; its parent is handed to the
    /// postgres user), with `initdb` arguments added and `settings` appended to
    /// postgresql.conf, then starts it and makes the database `iap`. `home` (made if
    /// missing; a fresh temporary directory by default) keeps the log and the socket.
    public static func create(
        directory: String, home: String? = nil, initdb: [String] = [], settings: String = ""
    ) async throws -> PostgresServer {
        let home = home ?? NSTemporaryDirectory() + "iap-pg-\(UUID().uuidString.prefix(8))"
        let server = PostgresServer(directory: directory, home: home, port: LoopbackPort.free())
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let parent = (directory as NSString).deletingLastPathComponent
        try await run("/bin/chown", ["postgres:postgres", home, parent])
        try await server.asPostgres(
            ["initdb", "-D", directory, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"] + initdb)
        let lines = """
            listen_addresses = '127.0.0.1'
            port = \(server.port)
            unix_socket_directories = '\(home)'
            \(settings)
            """
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/postgresql.conf"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(("\n" + lines + "\n").utf8))
        // What initdb wrote is on the disk before the server's first start, as after an
        // install: the settings, and the data directory's own entry in its parent.
        try handle.synchronize()
        try handle.close()
        for path in [directory, parent] { try Self.fsyncDirectory(path) }
        try await server.start()
        _ = try await server.sql("CREATE DATABASE iap", database: "postgres")
        return server
    }

    /// Starts the postmaster, as systemd would after a crash, and waits until it accepts
    /// connections (crash recovery included), at most `timeout`.
    public func start(timeout: Duration = .seconds(120)) async throws {
        let process = try SpawnedProcess.start(
            "/usr/bin/setpriv",
            ["--reuid=postgres", "--regid=postgres", "--init-groups", Self.bin + "/postgres", "-D", directory],
            output: .file(logPath))
        postmaster.withLock { $0 = process }
        let deadline = ContinuousClock.now + timeout
        while (try? await sql("SELECT 1", database: "postgres")) == nil {
            guard process.isRunning else { throw Failed(command: "postgres -D \(directory)", output: logTail(10)) }
            guard ContinuousClock.now < deadline else {
                throw Failed(command: "postgres -D \(directory) (not ready in \(timeout))", output: logTail(10))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Whether the postmaster runs.
    public func isRunning() async -> Bool {
        postmaster.withLock { $0?.isRunning ?? false }
    }

    /// The power goes: the postmaster and every process it started (its process group)
    /// SIGKILLed at once, nothing flushed or shut down; returns once the postmaster is reaped.
    public func kill() {
        guard let process = postmaster.withLock({ $0 }), process.isRunning else { return }
        Foundation.kill(-process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The postmaster and the processes it started; empty when it is not running.
    public var processIDs: [pid_t] {
        guard let process = postmaster.withLock({ $0 }), process.isRunning else { return [] }
        return [process.processIdentifier] + ProcessTree.children(of: process.processIdentifier)
    }

    /// An immediate shutdown (SIGQUIT) if it runs: a crash without the cut.
    public func stopImmediately() async {
        guard let process = postmaster.withLock({ $0 }), process.isRunning else { return }
        process.signal(SIGQUIT)
        _ = try? await offloaded { process.waitUntilExit() }
    }

    /// `psql -c sql` over the socket; its output.
    @discardableResult
    public func sql(_ sql: String, database: String = "iap") async throws -> String {
        try await asPostgres(
            [
                "psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", home, "-p", "\(port)", "-U", "postgres", "-d",
                database, "-c", sql,
            ])
    }

    /// Runs one of the server's programs (`psql`, `pg_ctl`…) as the postgres user, with
    /// the arguments after it.
    @discardableResult
    public func asPostgres(_ command: [String]) async throws -> String {
        try await Self.run(
            "/usr/sbin/runuser", ["-u", "postgres", "--", Self.bin + "/" + command[0]] + command.dropFirst())
    }

    /// The last lines of the server's log.
    public func logTail(_ lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        // Statements are logged whole: a line's first 200 characters say enough.
        return text.split(separator: "\n").suffix(lines).map { $0.prefix(200) }.joined(separator: "\n")
    }

    /// Stops the server hard (if it runs) and removes its home (log, socket); the data
    /// directory is the caller's.
    public func destroy() async {
        await stopImmediately()
        try? FileManager.default.removeItem(atPath: home)
    }

    static func fsyncDirectory(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw Failed(command: "open \(path)", output: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw Failed(command: "fsync \(path)", output: String(cString: strerror(errno)))
        }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        // Not Foundation's Process: the postmaster pg_ctl leaves behind must inherit no
        // descriptor of this process (ChildProcess closes them).
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: executable), arguments)
        guard outcome.status == 0 else { throw Failed(command: "\(executable) \(arguments)", output: outcome.output) }
        return outcome.output
    }
}
