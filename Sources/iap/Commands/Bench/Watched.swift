import Foundation

/// A process, or a group of processes, whose usage `iap bench stages` reads at both ends of
/// its measured window.
struct Watched: Sendable {
    let name: String
    private let usage: @Sendable () -> ProcessUsage?
    /// The `cgroup.procs` of its CPU cap, with the cap that made it.
    private let cgroup: (procs: String, cap: CPUCap)?

    /// What one reading found.
    struct Reading: Sendable {
        var usage: ProcessUsage
        var throttling: CPUCap.Throttling?
    }

    init(_ name: String, pids: [Int32]) {
        self.init(name, cgroup: nil) { ProcessUsage.sum(pids) }
    }

    init(_ stage: StageProcess, cap: CPUCap?) {
        let cgroup = stage.cgroup.flatMap { procs in cap.map { (procs, $0) } }
        self.init(stage.name, cgroup: cgroup) { [pid = stage.pid] in ProcessUsage.sum([pid]) }
    }

    private init(
        _ name: String, cgroup: (procs: String, cap: CPUCap)?, usage: @escaping @Sendable () -> ProcessUsage?
    ) {
        self.name = name
        self.usage = usage
        self.cgroup = cgroup
    }

    /// The RabbitMQ node's processes as they are now: `rabbitmq`.
    static func broker() -> Watched { Watched("rabbitmq", pids: ProcessUsage.brokerPIDs()) }

    /// PostgreSQL's processes doing `database`'s work and the server's own (postmaster,
    /// writers, launchers), looked up at each reading: `postgresql`.
    static func postgres(_ database: String) -> Watched {
        Watched(postgresName, cgroup: nil) { ProcessUsage.sharing(PostgresProcesses.pids(of: database).ours) }
    }

    /// Other databases' backends on the same server: someone else's work, shown apart.
    static func otherDatabases(_ database: String) -> Watched {
        Watched(othersName, cgroup: nil) { ProcessUsage.sharing(PostgresProcesses.pids(of: database).others) }
    }

    static let postgresName = "postgresql"
    static let othersName = "postgresql: other dbs"

    /// Nil when the process is gone.
    func read() -> Reading? {
        usage().map { Reading(usage: $0, throttling: cgroup.flatMap { $0.cap.throttling($0.procs) }) }
    }
}
