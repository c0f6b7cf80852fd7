import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the drills, the benchmarks and the tests.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close what the
/// child should not inherit, and copies each directory entry whole, reading past the end of
/// glibc's buffer; now and then that is an unmapped page and the parent crashes
/// (swift-corelibs-foundation #5472, fixed after Swift 6.3). Here glibc closes the
/// descriptors itself (`posix_spawn_file_actions_addclosefrom_np`).
///
/// ```swift
/// let child = try SpawnedProcess.start("/usr/bin/env", ["true"])
/// child.waitUntilExit()
/// ```
public final class SpawnedProcess: Sendable {
    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        case null
        /// Appended to this file, created if missing.
        case file(String)
        /// This process's descriptor (a pipe's write end), duplicated for the child.
        case descriptor(Int32)
        /// Standard error only: where standard output goes.
        case standardOutput
    }

    /// How the child ended.
    public enum Termination: Hashable, Sendable {
        case exited(Int32)
        case signaled(Int32)
    }

    public let processIdentifier: pid_t
    private let ended = Mutex<Termination?>(nil)

    private init(processIdentifier: pid_t) {
        self.processIdentifier = processIdentifier
    }

    /// Starts `executable arguments…` with `environment` (this process's when nil), in a
    /// process group of its own as Foundation's `Process` does, its standard input
    /// `/dev/null`, no other descriptor of this process but what `output` and `error` name,
    /// and no signal blocked or ignored.
    /// - Throws: ``SpawnError`` naming the executable and the reason.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        output: Output = .null, error: Output = .standardOutput
    ) throws -> SpawnedProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (target, destination) in [(Int32(1), output), (Int32(2), error)] {
            switch destination {
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            case .standardOutput: posix_spawn_file_actions_adddup2(&actions, 1, target)
            }
        }
        try closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // No signal blocked, and the ones a parent may ignore (SIGPIPE: NIO does) at their
        // defaults: a thread of libdispatch's blocks some, and its mask would be the child's.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw SpawnError(executable: executable, code: status) }
        return SpawnedProcess(processIdentifier: pid)
    }

    /// Has the child close every descriptor from 3 up, with glibc's own action (2.34 and
    /// later; Swift does not see its declaration, which wants `_GNU_SOURCE`).
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        guard let closeFrom else {
            throw SpawnError(executable: "posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)", code: ENOSYS)
        }
        _ = closeFrom(&actions, 3)
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }

    /// How it ended; nil while it runs.
    public var termination: Termination? {
        reap(blocking: false)
    }

    public var isRunning: Bool { termination == nil }

    /// Waits for it to end.
    @discardableResult
    public func waitUntilExit() -> Termination {
        reap(blocking: true)!
    }

    /// Its exit status, or the signal that ended it (as Foundation's `terminationStatus`).
    /// - Precondition: it has ended.
    public var terminationStatus: Int32 {
        switch waitUntilExit() {
        case .exited(let code), .signaled(let code): code
        }
    }

    /// Sends `signal` (SIGTERM by default) unless it has already been reaped (its pid may
    /// then be another process's).
    public func signal(_ signal: Int32 = SIGTERM) {
        if ended.withLock({ $0 == nil }) { _ = kill(processIdentifier, signal) }
    }

    /// Reaps the child once (a pid is the parent's to wait for only once), remembering how
    /// it ended. `waitpid` runs outside the lock, so that a blocking wait holds up no one.
    private func reap(blocking: Bool) -> Termination? {
        while true {
            if let known = ended.withLock({ $0 }) { return known }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
            if result == processIdentifier {
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
                let termination: Termination =
                    status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
                ended.withLock { $0 = $0 ?? termination }
                return termination
            }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            // ECHILD: another thread reaped it and is about to say how it ended.
            guard blocking else { return ended.withLock { $0 } }
            usleep(1000)
        }
    }

    /// Runs `executable arguments…` to the end, its standard output and error together.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        throws -> (termination: Termination, output: String)
    {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw SpawnError(executable: executable, code: errno) }
        let reading = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true)
        let child: SpawnedProcess
        do {
            child = try start(executable, arguments, environment: environment, output: .descriptor(descriptors[1]))
        } catch {
            close(descriptors[1])
            throw error
        }
        // The child holds its own copy: the end of its output is the end of the pipe.
        close(descriptors[1])
        let output = reading.readDataToEndOfFile()
        return (child.waitUntilExit(), String(decoding: output, as: UTF8.self))
    }
}

public struct SpawnError: Error, CustomStringConvertible {
    public let executable: String
    public let code: Int32

    public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
}
