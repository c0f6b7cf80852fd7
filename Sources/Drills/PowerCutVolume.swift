import Foundation

/// A directory whose unsynced writes a simulated power cut drops: the lab's FUSE file system
/// (`Tools/powercut-fs`, built by `scripts/powercut-fs.sh build`), LazyFS's idea. While
/// mounted it behaves as a disk does; ``cut()`` (every process using it SIGKILLed first)
/// unmounts it and keeps only what was fsynced, a directory's entries included, and
/// ``mount()`` brings that back. Needs root (FUSE's mount).
public struct PowerCutVolume: Sendable {
    /// Where the programs see the volume.
    public let mountpoint: String
    /// The file system's own state: the live tree and what would survive a cut.
    public let state: String
    /// The `powercut-fs` program.
    public let executable: URL
    /// Journal semantics (`--journal`): any fsync commits every directory change, as ext4 and
    /// XFS do; what RabbitMQ and PostgreSQL rely on.
    public let journal: Bool

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A volume kept under `directory` (`state/` and `volume/`).
    public init(directory: String, executable: URL, journal: Bool = false) throws {
        self.state = directory + "/state"
        self.mountpoint = directory + "/volume"
        self.executable = executable
        self.journal = journal
        for path in [state, mountpoint] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
    }

    /// The program `IAP_POWERCUT_FS` names, else the build's (`.build/powercut-fs/powercut-fs`
    /// under the working directory); nil when neither exists.
    public static func locateExecutable(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: String = FileManager.default.currentDirectoryPath
    ) -> URL? {
        let path = environment["IAP_POWERCUT_FS"] ?? directory + "/.build/powercut-fs/powercut-fs"
        return FileManager.default.isExecutableFile(atPath: path) ? URL(fileURLWithPath: path) : nil
    }

    /// Mounts the volume (what the last cut kept, after one); returns once it is usable.
    public func mount() async throws {
        _ = try await run(["mount"] + (journal ? ["--journal"] : []) + [state, mountpoint])
    }

    /// The power goes: the volume unmounted and every write not synced dropped. Whatever
    /// still used it must have been SIGKILLed before. Returns the program's summary of what
    /// the cut dropped.
    @discardableResult
    public func cut() async throws -> String {
        try await run(["cut", state]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A clean unmount (everything kept), for the end of a run; never throws.
    public func unmount() async {
        _ = try? await run(["unmount", state, mountpoint])
    }

    private func run(_ arguments: [String]) async throws -> String {
        let outcome = try await ChildProcess.run(executable, arguments)
        guard outcome.status == 0 else {
            throw Failure(
                description:
                    "powercut-fs \(arguments.joined(separator: " ")) failed (\(outcome.status)): \(outcome.output)")
        }
        return outcome.output
    }
}
