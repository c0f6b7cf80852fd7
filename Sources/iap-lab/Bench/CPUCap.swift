import Foundation
import Synchronization

/// `iap-lab bench --cpu-limit F`: each stage process in a cgroup of its own, capped at F of a
/// core by the kernel's CFS bandwidth control, so that a small machine shows what one more
/// replica of a stage buys. cgroup v1 (`cpu.cfs_quota_us`) and v2 (`cpu.max`) both work;
/// the groups are `iap-bench-<pid>-<stage>-<n>` at the root of the cpu hierarchy.
final class CPUCap: Sendable {
    enum Version: String, Codable, Sendable { case v1, v2 }

    /// Cores each group may use, such as 0.25.
    let cores: Double
    let version: Version
    /// The hierarchy's root, where the groups are made.
    let root: String
    /// The CFS period, in microseconds.
    private let period: Int
    private let prefix = "iap-bench-\(getpid())-"
    private let made = Mutex<[String]>([])

    /// Finds the cpu controller and checks that a group can be made there.
    /// - Throws: ``CPUCapError`` naming what is missing or not writable.
    init(cores: Double) throws(CPUCapError) {
        self.cores = cores
        guard let (version, root) = Self.hierarchy() else { throw .noController }
        self.version = version
        self.root = root
        if version == .v2 { try Self.enableCPU(below: root) }
        period =
            version == .v1
            ? Int(Self.read(root + "/cpu.cfs_period_us").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 100_000
            : 100_000
        Self.removeStale(in: root)
        // Here, before any stage starts, rather than at the first stage.
        let probe = "\(root)/\(prefix)probe"
        guard mkdir(probe, 0o755) == 0 || errno == EEXIST else { throw .notWritable(probe, Self.lastError) }
        rmdir(probe)
    }

    /// The group for stage `name` (`intake`, `validator-2`, ...), made and capped on first
    /// use; returns the file a process writes its pid to, to join it.
    func join(_ name: String) throws(CPUCapError) -> String {
        let last = name.split(separator: "-").last.map(String.init) ?? ""
        let group = "\(root)/\(prefix)\(name)\(Int(last) == nil ? "-1" : "")"
        if !made.withLock({ $0.contains(group) }) {
            if mkdir(group, 0o755) != 0, errno != EEXIST { throw .notWritable(group, Self.lastError) }
            made.withLock { $0.append(group) }
            let quota = max(1_000, Int((cores * Double(period)).rounded()))
            switch version {
            case .v1: try Self.write("\(quota)", to: group + "/cpu.cfs_quota_us")
            case .v2: try Self.write("\(quota) \(period)", to: group + "/cpu.max")
            }
        }
        return group + "/cgroup.procs"
    }

    /// `/bin/sh` moves itself into the group, then becomes `executable`: the stage spends
    /// no CPU outside its cap.
    func wrap(_ executable: URL, _ arguments: [String], joining procs: String) -> (URL, [String]) {
        (URL(fileURLWithPath: "/bin/sh"), ["-c", #"echo $$ > "$0" && exec "$@""#, procs, executable.path] + arguments)
    }

    /// Enforcement periods so far, and how many of them the group ran into its cap.
    struct Throttling: Sendable {
        var periods: Int
        var throttled: Int

        /// The share of periods between `earlier` and `self` in which the cap held the group back.
        func share(since earlier: Throttling?) -> Double? {
            let periods = self.periods - (earlier?.periods ?? 0)
            return periods > 0 ? Double(throttled - (earlier?.throttled ?? 0)) / Double(periods) : nil
        }
    }

    /// `cpu.stat` of the group `procs` belongs to; nil when it cannot be read.
    func throttling(_ procs: String) -> Throttling? {
        let stat = Self.read((procs as NSString).deletingLastPathComponent + "/cpu.stat")
        var values: [Substring: Int] = [:]
        for line in stat.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { values[parts[0]] = value }
        }
        guard let periods = values["nr_periods"], let throttled = values["nr_throttled"] else { return nil }
        return Throttling(periods: periods, throttled: throttled)
    }

    /// Removes every group this process made; their processes must have exited. Returns the
    /// groups that could not be removed.
    @discardableResult
    func removeAll() -> [String] {
        let groups = made.withLock { made in
            defer { made = [] }
            return made
        }
        return groups.filter { !Self.remove($0) }
    }

    // MARK: - The hierarchy

    /// cgroup v1's cpu hierarchy when the controller is bound there, else v2's unified one
    /// when it offers `cpu` (a hybrid host has both mounted).
    private static func hierarchy() -> (Version, String)? {
        let mounts = read("/proc/self/mounts").split(separator: "\n").map { $0.split(separator: " ") }
        let v1 = mounts.first { fields in
            fields.count > 3 && fields[2] == "cgroup" && fields[3].split(separator: ",").contains("cpu")
        }
        if let v1 { return (.v1, String(v1[1])) }
        let v2 = mounts.first { fields in
            fields.count > 3 && fields[2] == "cgroup2"
                && read("\(fields[1])/cgroup.controllers").split(whereSeparator: \.isWhitespace).contains("cpu")
        }
        return v2.map { (.v2, String($0[1])) }
    }

    /// v2 gives a child the cpu controller only when its parent's subtree_control lists it.
    private static func enableCPU(below root: String) throws(CPUCapError) {
        let control = root + "/cgroup.subtree_control"
        guard !read(control).split(whereSeparator: \.isWhitespace).contains("cpu") else { return }
        try write("+cpu", to: control)
    }

    /// Groups an earlier bench left behind when it was killed outright (SIGKILL): those of
    /// pids no longer running, once empty.
    private static func removeStale(in root: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for entry in entries where entry.hasPrefix("iap-bench-") {
            let pid = entry.dropFirst("iap-bench-".count).prefix { $0.isNumber }
            guard let pid = Int32(pid), kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = remove("\(root)/\(entry)")
        }
    }

    /// rmdir, retried briefly: a process that just exited may still be leaving the group.
    private static func remove(_ group: String) -> Bool {
        for _ in 0..<40 {
            if rmdir(group) == 0 || errno == ENOENT { return true }
            guard errno == EBUSY else { return false }
            usleep(50_000)
        }
        return false
    }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    private static func write(_ value: String, to path: String) throws(CPUCapError) {
        // Plain write(2): the kernel answers each cgroup file's write with its own errno.
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw .notWritable(path, lastError) }
        defer { close(fd) }
        let written = value.withCString { Foundation.write(fd, $0, strlen($0)) }
        guard written >= 0 else { throw .notWritable(path, lastError) }
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}

/// Why `--cpu-limit` cannot be honoured here.
enum CPUCapError: Error, CustomStringConvertible {
    case noController
    case notWritable(String, String)

    var description: String {
        switch self {
        case .noController:
            "--cpu-limit: no cgroup cpu controller is mounted (neither v1's cpu hierarchy nor v2's cpu.max); see /proc/self/mounts"
        case .notWritable(let path, let reason):
            "--cpu-limit: cannot write \(path): \(reason) (making cgroups needs root, or a delegated cgroup)"
        }
    }
}
