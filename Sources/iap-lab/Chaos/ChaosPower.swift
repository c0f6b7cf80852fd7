import ArgumentParser
import Drills
import Foundation

/// `iap-lab chaos --power`: power cuts in place of single kills.
struct ChaosPowerOptions: ParsableArguments {
    @Flag(
        help: """
            Cut the power instead of killing one stage at a time: the SQLite database lives on a volume \
            that drops every unsynced write at a cut (powercut-fs, FUSE; needs root), and at each cut every \
            stage is SIGKILLed at once and the volume's unsynced writes are dropped, then everything restarts.
            """)
    var power = false
    @Option(help: "Power cuts at least (--power).") var cuts = 20
    @Option(help: "Seconds between power cuts: 'MIN-MAX' or one number (--power).") var cutInterval = "3-6"
    @Option(help: "The powercut-fs program (default: IAP_POWERCUT_FS, else .build/powercut-fs/powercut-fs).")
    var powercutFs: String?

    var interval: ClosedRange<Double>? { secondsRange(cutInterval) }

    func validate() throws {
        guard power else { return }
        guard cuts > 0, interval != nil else {
            throw ValidationError("--cuts must be positive and --cut-interval 'MIN-MAX' seconds, 0 < MIN <= MAX")
        }
        guard getuid() == 0 else { throw ValidationError("--power mounts a FUSE file system: run it as root") }
    }
}

/// The volume of a power-cut run, with the pipeline's SQLite database on it.
struct ChaosPower: Sendable {
    let volume: PowerCutVolume

    /// Mounts a fresh volume under `directory`; nil without --power.
    static func start(_ options: ChaosPowerOptions, directory: String, databaseURL: String?) async throws
        -> ChaosPower?
    {
        guard options.power else { return nil }
        guard databaseURL == nil else {
            throw ValidationError(
                "--power runs on SQLite: PostgreSQL's data directory and RabbitMQ's on the volume are not built yet")
        }
        let executable =
            try options.powercutFs.map { URL(fileURLWithPath: $0) } ?? PowerCutVolume.locateExecutable()
            ?? { throw ValidationError("no powercut-fs program: build it with scripts/powercut-fs.sh build") }()
        let volume = try PowerCutVolume(directory: directory + "/power", executable: executable)
        try await volume.mount()
        return ChaosPower(volume: volume)
    }

    /// What the stages are told: their database on the volume.
    var settings: [String: String] { ["IAP_DB_PATH": volume.mountpoint + "/iap.sqlite"] }

    /// Drops what was not synced and mounts what survived; returns what the cut dropped.
    func cut() async throws -> String {
        let dropped = try await volume.cut()
        try await volume.mount()
        return dropped
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
