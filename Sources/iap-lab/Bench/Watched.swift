import Foundation

/// A process, or a group of processes, whose usage `iap-lab bench stages` reads at both ends of
/// its measured window.
struct Watched: Sendable {
    let name: String
    /// The group's processes as they are at a reading.
    private let pids: @Sendable () -> [Int32]
    /// Memory as the processes' proportional share, for processes that share their memory.
    private let sharing: Bool
    /// The `cgroup.procs` of its CPU cap, with the cap that made it.
    private let cgroup: (procs: String, cap: CPUCap)?

    /// What one reading found.
    struct Reading: Sendable {
        /// Each process's own, by pid.
        var processes: [Int32: ProcessUsage]
        /// All of them together (memory as their proportional share when they share it).
        var usage: ProcessUsage
        var throttling: CPUCap.Throttling?

        /// What the processes read now spent since `earlier`, each counted from its own earlier
        /// reading: one started in between counts from zero, and one that ended takes its
        /// share with it (the group as a whole may be smaller now than then).
        func spent(since earlier: Reading?) -> ProcessUsage {
            var spent = ProcessUsage.zero
            for (pid, now) in processes {
                let then = earlier?.processes[pid].flatMap { $0.started == now.started ? $0 : nil } ?? .zero
                spent.cpuSeconds += now.cpuSeconds - then.cpuSeconds
                spent.contextSwitches += now.contextSwitches - then.contextSwitches
                spent.diskWrittenBytes += now.diskWrittenBytes - then.diskWrittenBytes
            }
            return spent
        }
    }

    init(_ name: String, pids: [Int32]) {
        self.init(name, cgroup: nil) { pids }
    }

    init(_ stage: StageProcess, cap: CPUCap?) {
        let cgroup = stage.cgroup.flatMap { procs in cap.map { (procs, $0) } }
        self.init(stage.name, cgroup: cgroup) { [pid = stage.pid] in [pid] }
    }

    private init(
        _ name: String, sharing: Bool = false, cgroup: (procs: String, cap: CPUCap)?,
        pids: @escaping @Sendable () -> [Int32]
    ) {
        self.name = name
        self.pids = pids
        self.sharing = sharing
        self.cgroup = cgroup
    }

    /// The RabbitMQ node's processes as they are now: `rabbitmq`.
    static func broker() -> Watched { Watched("rabbitmq", pids: ProcessUsage.brokerPIDs()) }

    /// PostgreSQL's processes doing `database`'s work and the server's own (postmaster,
    /// writers, launchers), looked up at each reading: `postgresql`.
    static func postgres(_ database: String) -> Watched {
        Watched(postgresName, sharing: true, cgroup: nil) { PostgresProcesses.pids(of: database).ours }
    }

    /// Other databases' backends on the same server: someone else's work, shown apart.
    static func otherDatabases(_ database: String) -> Watched {
        Watched(othersName, sharing: true, cgroup: nil) { PostgresProcesses.pids(of: database).others }
    }

    static let postgresName = "postgresql"
    static let othersName = "postgresql: other dbs"

    /// Nil when every process is gone.
    func read() -> Reading? {
        let pids = self.pids()
        let processes = Dictionary(
            pids.compactMap { pid in ProcessUsage(pid: pid).map { (pid, $0) } }, uniquingKeysWith: { $1 })
        guard var usage = ProcessUsage.sum(Array(processes.values)) else { return nil }
        if sharing {
            usage.residentBytes = ProcessUsage.proportionalBytes(Array(processes.keys))
            usage.peakResidentBytes = usage.residentBytes
        }
        return Reading(
            processes: processes, usage: usage, throttling: cgroup.flatMap { $0.cap.throttling($0.procs) })
    }
}
