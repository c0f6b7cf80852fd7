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

    /// PostgreSQL's server processes, looked up at each reading (a backend may start or end
    /// in between): `postgresql`.
    static func postgres() -> Watched {
        Watched("postgresql", cgroup: nil) { ProcessUsage.server(ProcessUsage.postgresPIDs()) }
    }

    /// Nil when the process is gone.
    func read() -> Reading? {
        usage().map { Reading(usage: $0, throttling: cgroup.flatMap { $0.cap.throttling($0.procs) }) }
    }
}
