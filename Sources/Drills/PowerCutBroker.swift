import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A RabbitMQ node of its own (not the machine's `rabbit@host`) whose data directory is on a
/// ``PowerCutVolume``, for power-cut drills: ``kill()`` SIGKILLs every process of the node,
/// the volume's cut drops what was never fsynced, and ``start()`` boots what is left.
///
/// ```swift
/// let volume = try PowerCutVolume(directory: dir + "/disk", executable: fs, journal: true)
/// let broker = try PowerCutBroker(volume: volume, directory: dir + "/node")
/// try await broker.start()          // the first start prepares the node, then mounts
/// try await broker.cut()            // kill, cut, mount again
/// try await broker.start()
/// try await broker.stop()
/// ```
///
/// The node is prepared as a real server is (measured with RabbitMQ 3.10.8 on Debian 12):
/// - Its first boot creates the data directory, and a clean stop and unmount then count all
///   of it durable: a server is installed and stopped cleanly before power cuts matter.
///   Booted straight on the volume, it came back without its feature flags file
///   (rabbitmq-server#4881: written without fsync).
/// - After every boot it fsyncs the data directory (``settle()``): at boot Mnesia and Ra
///   repair their dets files (`schema.DAT`, `meta.dets`) by writing `X.TMP` and renaming it
///   over `X` with no fsync. ext4 makes such a rename durable only with its data
///   (auto_da_alloc) and writes everything back within 30 s; powercut-fs never does, so a
///   cut seconds after a boot brought `schema.DAT` back empty and the next boot failed
///   (`not_a_dets_file`) at the second cut. The settle stands for a node that ran half a
///   minute before the power went; what it writes afterwards is durable only if RabbitMQ
///   syncs it (Ra's WAL, on which publisher confirms wait).
/// - A queue must exist (declared, then the node restarted or left half a minute) before
///   the cuts: Ra 2.2 records a new queue's server in `names.dets` (`ra_directory`, a
///   `dets:insert`) without fsync, and when a cut takes that record, recovery finds
///   `name_not_registered` and starts a new, empty server that never elects a leader: the
///   queue answers "leader not known" and every message it confirmed is gone (measured: 2900
///   and 8150 confirmed, 0 left after 5 cuts). ext4 writes that record back within ~30 s.
/// - Use a volume with `journal: true` (ext4's default ordering); Ra never fsyncs the
///   directories it creates.
public final class PowerCutBroker: Sendable {
    public let volume: PowerCutVolume
    /// `iapcut-<random>@localhost`.
    public let nodeName: String
    public let port: Int
    /// Where the node's own files live, off the volume: HOME (its cookie), logs, config.
    public let directory: String
    private let environment: [String: String]
    private let server = Mutex<SpawnedProcess?>(nil)
    private let prepared = Mutex(false)

    public static let serverExecutable = "/usr/lib/rabbitmq/bin/rabbitmq-server"
    public static let rabbitmqctlExecutable = "/usr/lib/rabbitmq/bin/rabbitmqctl"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A node whose data will be on `volume` (not mounted yet, nothing on it) and whose other
    /// files go under `directory`.
    public init(volume: PowerCutVolume, directory: String) throws {
        self.volume = volume
        self.directory = directory
        self.nodeName = "iapcut-\(UInt32.random(in: 0...UInt32.max))@localhost"
        self.port = LoopbackPort.free()
        let distribution = LoopbackPort.free()
        let files = FileManager.default
        for path in ["home", "log"] {
            try files.createDirectory(atPath: directory + "/" + path, withIntermediateDirectories: true)
        }
        let cookie = directory + "/home/.erlang.cookie"
        try? files.removeItem(atPath: cookie)
        try String(UInt64.random(in: 0...UInt64.max), radix: 36).uppercased().write(
            toFile: cookie, atomically: false, encoding: .utf8)
        try files.setAttributes([.posixPermissions: 0o400], ofItemAtPath: cookie)
        // No plugin (the management plugin would bind a port of its own) and empty config
        // files, so that nothing of /etc/rabbitmq (the machine's node) applies.
        try "[].\n".write(toFile: directory + "/enabled_plugins", atomically: false, encoding: .utf8)
        for name in ["rabbitmq.conf", "rabbitmq-env.conf"] {
            try "".write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
        }
        environment = [
            "HOME": directory + "/home", "RABBITMQ_NODENAME": nodeName, "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": String(port), "RABBITMQ_DIST_PORT": String(distribution),
            "RABBITMQ_MNESIA_BASE": volume.mountpoint + "/mnesia", "RABBITMQ_LOG_BASE": directory + "/log",
            "RABBITMQ_ENABLED_PLUGINS_FILE": directory + "/enabled_plugins",
            "RABBITMQ_CONFIG_FILE": directory + "/rabbitmq.conf",
            "RABBITMQ_CONF_ENV_FILE": directory + "/rabbitmq-env.conf", "RABBITMQ_PID_FILE": directory + "/pid",
        ]
    }

    /// `amqp://guest:guest@127.0.0.1:PORT/` (guest may log in over loopback only).
    public var amqpURL: String { "amqp://guest:guest@127.0.0.1:\(port)/" }

    /// The node's log file, for a failure's message.
    public var logFile: String { directory + "/log/\(nodeName).log" }

    /// Boots the node and returns once it takes AMQP connections, then settles it (see the
    /// type's comment). The first call prepares the node and mounts the volume; later ones
    /// want it mounted (after ``cut()``, or ``PowerCutVolume/mount()`` after a cut by hand).
    public func start(timeout: Duration = .seconds(60)) async throws {
        if !prepared.withLock({ $0 }) {
            try await volume.mount()
            try await boot(timeout: timeout)
            try await stop()
            await volume.unmount()
            try await volume.mount()
            prepared.withLock { $0 = true }
        }
        try await boot(timeout: timeout)
        try await settle()
    }

    /// The power goes for the node: every one of its processes SIGKILLed at once (stopped
    /// first, so that none writes while the others die). Does nothing when it is not running.
    public func kill() {
        guard let process = server.withLock({ $0 }) else { return }
        let first = ProcessTree.descendants(of: process.processIdentifier)
        for pid in first { _ = Glibc.kill(pid, SIGSTOP) }
        // Stopped processes fork no more: this list is complete.
        let all = ProcessTree.descendants(of: process.processIdentifier)
        for pid in all { _ = Glibc.kill(pid, SIGKILL) }
        process.waitUntilExit()
        Self.awaitGone(all.filter { $0 != process.processIdentifier })
        server.withLock { $0 = nil }
    }

    /// The node's processes (beam.smp and what it started); empty when it is not running.
    public var processIDs: [pid_t] {
        guard let process = server.withLock({ $0 }), process.isRunning else { return [] }
        return ProcessTree.descendants(of: process.processIdentifier)
    }

    /// A power cut: ``kill()``, the volume's cut, the volume mounted again (what survived).
    /// Returns the cut's summary; ``start()`` boots the node again.
    @discardableResult
    public func cut() async throws -> String {
        kill()
        let summary = try await volume.cut()
        try await volume.mount()
        return summary
    }

    /// A clean stop (`rabbitmqctl stop`), waiting for the node to end.
    public func stop() async throws {
        guard let process = server.withLock({ $0 }) else { return }
        _ = try await rabbitmqctl(["stop"])
        _ = try await offloaded { process.waitUntilExit() }
        server.withLock { $0 = nil }
    }

    /// Runs `rabbitmqctl -n NODE arguments…`; its output, or a throw on a non-zero exit.
    public func rabbitmqctl(_ arguments: [String]) async throws -> String {
        let all = ["-n", nodeName] + arguments
        let outcome = try await ChildProcess.run(
            URL(fileURLWithPath: Self.rabbitmqctlExecutable), all, environment: environment)
        guard outcome.status == 0 else {
            throw Rabbitmqctl.RabbitmqctlError(arguments: all, status: outcome.status, output: outcome.output)
        }
        return outcome.output
    }

    private func boot(timeout: Duration) async throws {
        let process = try SpawnedProcess.start(
            Self.serverExecutable, [], environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            output: .file(directory + "/log/stdout"))
        server.withLock { $0 = process }
        let deadline = ContinuousClock.now + timeout
        while true {
            if process.termination != nil {
                server.withLock { $0 = nil }
                throw Failure(description: "\(nodeName) did not boot (\(process.waitUntilExit())); see \(logFile)")
            }
            // The listener opens at the end of the boot; a connect costs far less than a
            // rabbitmqctl (an Erlang VM each), which confirms it once.
            if Self.accepts(port: port), (try? await rabbitmqctl(["await_startup", "--timeout", "30"])) != nil {
                return
            }
            guard ContinuousClock.now < deadline else {
                kill()
                throw Failure(description: "\(nodeName) did not boot within \(timeout); see \(logFile)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Whether a TCP connect to 127.0.0.1:`port` succeeds.
    private static func accepts(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Fsyncs every file and directory under the volume (see the type's comment for why):
    /// after each boot, and after queues are declared, before cuts may come.
    public func settle() async throws {
        let root = volume.mountpoint
        try await offloaded {
            guard let walker = FileManager.default.enumerator(atPath: root) else { return }
            Self.sync(root)
            while let relative = walker.nextObject() as? String { Self.sync(root + "/" + relative) }
        }
    }

    /// Fsyncs one file or directory; one that went meanwhile is skipped.
    private static func sync(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        let kind = status.st_mode & S_IFMT
        if kind == S_IFREG || kind == S_IFDIR { fsync(descriptor) }
    }

    /// Waits (up to 5 s) until killed processes that are not ours to reap hold nothing open:
    /// gone, or zombies.
    private static func awaitGone(_ pids: [pid_t]) {
        let deadline = Date().addingTimeInterval(5)
        for pid in pids {
            while Date() < deadline {
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { break }
                if stat[stat.index(after: close)...].split(separator: " ").first == "Z" { break }
                usleep(10_000)
            }
        }
    }
}
