import ArgumentParser
import Drills
import Foundation

/// `iap-lab chaos --power`: power cuts in place of single kills.
struct ChaosPowerOptions: ParsableArguments {
    @Flag(
        help: """
            Cut the power instead of killing one stage at a time: the database lives on a volume that drops \
            every unsynced write at a cut (powercut-fs, FUSE; needs root), and at each cut every stage (and the \
            database server) is SIGKILLed at once and the volume's unsynced writes are dropped, then everything \
            restarts.
            """)
    var power = false
    @Flag(
        help: """
            With --power: the stages run on PostgreSQL, a server of the run's own whose data directory is on the \
            volume (mounted with --journal: an fsync commits the directories' changes, as ext4's journal does, \
            which PostgreSQL relies on).
            """)
    var postgres = false
    @Option(help: "Power cuts at least (--power).") var cuts = 20
    @Option(help: "Seconds between power cuts: 'MIN-MAX' or one number (--power).") var cutInterval = "3-6"
    @Option(help: "The powercut-fs program (default: IAP_POWERCUT_FS, else .build/powercut-fs/powercut-fs).")
    var powercutFs: String?

    var interval: ClosedRange<Double>? { secondsRange(cutInterval) }

    func validate() throws {
        guard power else {
            if postgres { throw ValidationError("--postgres goes with --power") }
            return
        }
        guard cuts > 0, interval != nil else {
            throw ValidationError("--cuts must be positive and --cut-interval 'MIN-MAX' seconds, 0 < MIN <= MAX")
        }
        guard getuid() == 0 else { throw ValidationError("--power mounts a FUSE file system: run it as root") }
    }
}

/// The disks of a power-cut run and what lives on them: the pipeline's SQLite database or a
/// PostgreSQL server's data directory on one, the run's own RabbitMQ node on the other. A
/// cut takes both at the same instant.
struct ChaosPower: Sendable {
    let volume: PowerCutVolume
    /// The run's own PostgreSQL server (`--postgres`), its data directory on the volume.
    let postgres: PostgresServer?
    /// The run's own RabbitMQ node, its data directory on a journal volume of its own
    /// (what Ra's and Mnesia's files rely on, as PostgreSQL's do).
    let broker: PowerCutBroker

    /// Mounts fresh volumes under `directory` and starts the servers on them; nil without --power.
    static func start(_ options: ChaosPowerOptions, directory: String, databaseURL: String?) async throws
        -> ChaosPower?
    {
        guard options.power else { return nil }
        guard databaseURL == nil else {
            throw ValidationError("--power brings its own database: --power --postgres in place of --database-url")
        }
        let executable =
            try options.powercutFs.map { URL(fileURLWithPath: $0) } ?? PowerCutVolume.locateExecutable()
            ?? { throw ValidationError("no powercut-fs program: build it with scripts/powercut-fs.sh build") }()
        // PostgreSQL fsyncs files, not always the directories they were made in: it relies on
        // a journal such as ext4's. On a strict volume the first cut lost CREATE DATABASE's
        // base/<oid> ("database subdirectory is missing").
        let volume = try PowerCutVolume(
            directory: directory + "/power", executable: executable, journal: options.postgres)
        let broker = try PowerCutBroker(
            volume: try PowerCutVolume(directory: directory + "/power-broker", executable: executable, journal: true),
            directory: directory + "/rabbitmq")
        try await volume.mount()
        var postgres: PostgresServer?
        do {
            try await broker.start()
            if options.postgres {
                postgres = try await PostgresServer.create(
                    directory: volume.mountpoint + "/postgres", home: directory + "/postgres")
            }
            return ChaosPower(volume: volume, postgres: postgres, broker: broker)
        } catch {
            await ChaosPower(volume: volume, postgres: postgres, broker: broker).stop()
            throw error
        }
    }

    /// The database the stages use: the server's on the volume, if there is one.
    var databaseURL: String? { postgres?.url }

    /// What the stages are told: their SQLite database on the volume, the run's broker.
    var settings: [String: String] {
        ["IAP_AMQP_URL": broker.amqpURL].merging(
            postgres == nil ? ["IAP_DB_PATH": volume.mountpoint + "/iap.sqlite"] : [:]
        ) { $1 }
    }

    /// The instant of the cut for the servers: SIGKILLed, nothing flushed.
    func powerOff() {
        postgres?.kill()
        broker.kill()
    }

    /// Drops what was not synced on both disks, mounts what survived and starts the servers
    /// again (their crash recovery included); returns what the cut dropped and how long the
    /// servers took.
    func cut() async throws -> String {
        let dropped = try await volume.cut()
        let brokerDropped = try await broker.cut()
        try await volume.mount()
        var started = ContinuousClock.now
        var summary = dropped + "; the broker's disk: " + Self.counts(brokerDropped)
        if let postgres {
            do { try await postgres.start() } catch {
                throw ValidationError(
                    "PostgreSQL did not come back after the cut (\(dropped)): \(error)\n\(postgres.logTail())")
            }
            summary += String(format: "; PostgreSQL recovered in %.1f s", (ContinuousClock.now - started).seconds)
            started = .now
        }
        do { try await broker.start() } catch {
            throw ValidationError("RabbitMQ did not come back after the cut (\(brokerDropped)): \(error)")
        }
        return summary + String(format: "; RabbitMQ booted in %.1f s", (ContinuousClock.now - started).seconds)
    }

    /// Once the stages have declared their queues, before the first cut: Ra records a new
    /// queue without a sync, which a real disk writes back within half a minute and this
    /// volume never does (see ``PowerCutBroker``).
    func queuesDeclared() async throws {
        try await broker.settle()
    }

    /// The end of the run: the servers stopped, the volumes unmounted cleanly.
    func stop() async {
        await postgres?.stopImmediately()
        try? await broker.stop()
        await volume.unmount()
        await broker.volume.unmount()
    }

    /// `dropped unsynced_files=…` of a cut's summary line, without the line's start.
    private static func counts(_ summary: String) -> String {
        summary.range(of: "dropped ").map { String(summary[$0.lowerBound...]) } ?? summary
    }
}

/// Seconds between faults as the options give them: `MIN-MAX` or one number, 0 < MIN <= MAX;
/// nil for anything else.
func secondsRange(_ text: String) -> ClosedRange<Double>? {
    let bounds = text.split(separator: "-").map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil,
        low > 0, low <= high
    else { return nil }
    return low...high
}
