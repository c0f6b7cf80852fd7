import Foundation

/// What Linux says a process has used so far, read from `/proc/<pid>/stat` and `status`.
struct ProcessUsage: Sendable {
    /// User plus system CPU time.
    var cpuSeconds: Double
    /// Resident set size now (`VmRSS`).
    var residentBytes: Int
    /// The highest resident set size since the process started (`VmHWM`).
    var peakResidentBytes: Int
    /// Context switches of all its threads so far: how often it went to sleep or was woken.
    var contextSwitches: Int
    /// Bytes it caused to be written to storage (`write_bytes` of `/proc/<pid>/io`).
    var diskWrittenBytes: Int
    /// When it started, in clock ticks after boot: tells a process from a later one given its pid.
    var started = 0

    /// Nil when the process is gone or /proc cannot be read.
    init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            // The command name is in parentheses and may hold spaces: fields start after the last ')'.
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3 of the man page, utime 14, stime 15, starttime 22.
        guard fields.count > 19, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        cpuSeconds = (user + system) / Double(Self.ticksPerSecond)
        started = Int(fields[19]) ?? 0
        residentBytes = Self.number(after: "VmRSS:", in: status) * 1024
        peakResidentBytes = Self.number(after: "VmHWM:", in: status) * 1024
        // /proc has each live thread's count; the benchmark's own process, whose load
        // generator's threads end before the last reading, asks the kernel for all of them.
        var own = rusage()
        if pid == getpid(), getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &own) == 0 {
            contextSwitches = own.ru_nvcsw + own.ru_nivcsw
        } else {
            contextSwitches = Self.liveThreadSwitches(pid: pid)
        }
        let io = (try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)) ?? ""
        diskWrittenBytes = Self.number(after: "write_bytes:", in: io)
    }

    private static func liveThreadSwitches(pid: Int32) -> Int {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.reduce(0) { total, thread in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8)
            else { return total }
            return total + Self.number(after: "voluntary_ctxt_switches:", in: status)
                + Self.number(after: "nonvoluntary_ctxt_switches:", in: status)
        }
    }

    private init(
        cpuSeconds: Double, residentBytes: Int, peakResidentBytes: Int, contextSwitches: Int, diskWrittenBytes: Int
    ) {
        self.cpuSeconds = cpuSeconds
        self.residentBytes = residentBytes
        self.peakResidentBytes = peakResidentBytes
        self.contextSwitches = contextSwitches
        self.diskWrittenBytes = diskWrittenBytes
    }

    /// Nothing used yet: the baseline of a process started during the run.
    static let zero = ProcessUsage(
        cpuSeconds: 0, residentBytes: 0, peakResidentBytes: 0, contextSwitches: 0, diskWrittenBytes: 0)

    /// Several processes as one (the broker's Erlang VM and its helpers): CPU and RSS add up.
    static func sum(_ pids: [Int32]) -> ProcessUsage? {
        sum(pids.compactMap(ProcessUsage.init(pid:)))
    }

    /// Several readings as one: CPU and RSS add up.
    static func sum(_ usages: [ProcessUsage]) -> ProcessUsage? {
        guard !usages.isEmpty else { return nil }
        return ProcessUsage(
            cpuSeconds: usages.map(\.cpuSeconds).reduce(0, +),
            residentBytes: usages.map(\.residentBytes).reduce(0, +),
            peakResidentBytes: usages.map(\.peakResidentBytes).reduce(0, +),
            contextSwitches: usages.map(\.contextSwitches).reduce(0, +),
            diskWrittenBytes: usages.map(\.diskWrittenBytes).reduce(0, +))
    }

    /// The memory `pids` hold as their proportional share (`Pss` of `smaps_rollup`): for
    /// processes that share memory, such as PostgreSQL's, whose RSS added up would count the
    /// shared buffers once per process.
    static func proportionalBytes(_ pids: [Int32]) -> Int {
        pids.map { pid in
            number(after: "Pss:", in: (try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8)) ?? "")
        }
        .reduce(0, +) * 1024
    }

    /// What /proc counts CPU time in.
    static let ticksPerSecond = max(sysconf(Int32(_SC_CLK_TCK)), 1)

    /// The number after `key` on its line of a /proc file (kB for memory, bytes for I/O).
    private static func number(after key: String, in status: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
    }

    /// The RabbitMQ node's processes on this machine (Erlang VM, port helpers, epmd).
    static func brokerPIDs() -> [Int32] {
        pids(named: ["beam.smp", "epmd", "erl_child_setup", "inet_gethost"]) { command in
            // rabbitmqctl runs an Erlang VM too: not the broker.
            !command.contains("rabbitmqcli")
        }
    }

    /// Processes whose command name is one of `names` and whose command line `accepts`.
    private static func pids(named names: Set<String>, accepts: (String) -> Bool) -> [Int32] {
        names.flatMap { commandLines(named: $0) }.filter { accepts($0.command) }.map(\.pid)
    }

    /// Every process whose command name is `name`, with its command line (NUL-separated).
    static func commandLines(named name: String) -> [(pid: Int32, command: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry),
                let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                let command = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8)
            else { return nil }
            return (pid, command)
        }
    }
}
