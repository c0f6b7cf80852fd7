import Drills
import Foundation
import PipelineCore
import StubStore

/// The faults of a chaos run, all from one seeded generator and one loop, so that nothing
/// else starts or stops a stage meanwhile: a SIGKILL of a random stage (restarted at once)
/// every `interval`, RabbitMQ's app stopped and started once, the verify endpoint taken away
/// for a while; and the plan's timed faults (``ChaosFault``: partitions, cluster nodes,
/// failovers), each chain in a task of its own beside the loop.
///
/// Used by one task at a time (the attack's while it runs, the run's after), hence unchecked.
final class ChaosMonkey: @unchecked Sendable {
    struct Plan {
        /// The stages a kill picks from.
        var targets: [String]
        /// Seconds between kills, drawn uniformly.
        var interval: ClosedRange<Double>
        var minimumKills: Int
        /// When RabbitMQ's app stops, and for how long (seconds from the start); nil when the
        /// broker is a cluster, whose nodes the ``chains`` stop instead.
        var brokerStop: Double?
        var brokerDown: Double
        /// `rabbitmqctl -n` node, nil for the local default one.
        var rabbitmqNode: String?
        /// rabbitmqctl for the run's own node (`--power`), in place of the machine's.
        var rabbitmqctl: (@Sendable ([String]) async throws -> String)? = nil
        /// When the stub store is killed, and how long before it is started again on its port.
        var outageStart: Double
        var outage: Double
        /// Timed faults, each chain in order (`iap-lab chaos --cluster`).
        var chains: [ChaosFaultChain] = []
        /// `iap-lab chaos --power`: at each interval every target SIGKILLed at once (and
        /// `powerOff` kills the servers on the volume in the same instant), then this drops
        /// what was not synced (returning what it dropped) and brings the volume back; `cuts`
        /// of them at least, in place of the single kills.
        var powerCut: (@Sendable () async throws -> String)? = nil
        var powerOff: @Sendable () -> Void = {}
        /// What is checked right after each cut (``ChaosCutCheck``).
        var cutCheck: ChaosCutCheck? = nil
        var cuts = 0
        /// Seconds between cuts when single kills go on between them (`--soak`); nil: every
        /// step is a cut.
        var cutInterval: ClosedRange<Double>? = nil
    }

    private let stages: StageProcesses
    private let plan: Plan
    private var random: SplitMix64
    let timeline: ChaosTimeline
    var started: ContinuousClock.Instant { timeline.started }
    /// Each chain's faults with their index in the timeline's records.
    private let chains: [[(fault: ChaosFault, index: Int)]]
    private(set) var kills: [String: Int] = [:]
    /// What the checks right after the cuts found.
    private(set) var cutViolations: [ChaosViolation] = []
    /// Stages found exited that nobody killed (restarted too).
    private(set) var unexpectedExits: [String: Int] = [:]
    /// Of those, the ones a signal ended that nobody sent (a crash): one line each.
    private(set) var crashes: [String] = []
    /// What happened when, for the report: `+12.3 s  rabbitmqctl stop_app`.
    var events: [String] { timeline.events }
    /// The timed faults of the plan, as they went.
    var faults: [ChaosFaultRecord] { timeline.records }
    /// Power cuts dealt (`--power`).
    private(set) var powerCuts = 0
    private(set) var brokerRestarted = false
    private var brokerStopped = false
    private(set) var outageServed = false

    init(stages: StageProcesses, plan: Plan, seed: UInt64) {
        self.stages = stages
        self.plan = plan
        self.random = SplitMix64(seed: seed ^ 0x6368_616F_73)  // apart from the load's draws
        let timeline = ChaosTimeline(started: .now)
        self.timeline = timeline
        chains = plan.chains.map { chain in chain.map { ($0, timeline.plan($0)) } }
    }

    var totalKills: Int { kills.values.reduce(0, +) }

    /// Kills and restarts until `loadDone()` says the load is in, the minimum of kills is
    /// reached, both outages are over and every timed fault was dealt and undone; then every
    /// stage runs again.
    func run(loadDone: @Sendable () -> Bool) async throws {
        let timeline = timeline
        let running = chains.map { chain in
            Task {
                do { try await timeline.run(chain) } catch {
                    timeline.fail()
                    throw error
                }
            }
        }
        do {
            try await killAndRestart(loadDone: loadDone) { self.chainsDone || timeline.failed }
        } catch {
            for task in running { task.cancel() }
            for task in running { _ = await task.result }
            throw error
        }
        // A chain that failed is the news.
        for task in running { try await task.value }
    }

    /// Every timed fault dealt and, unless a one-off, undone.
    private var chainsDone: Bool { faults.allSatisfy(\.done) }

    private func killAndRestart(loadDone: @Sendable () -> Bool, chainsDone: () -> Bool) async throws {
        var stubKilled = false
        var nextCut = plan.cutInterval.map { Double.random(in: $0, using: &random) } ?? 0
        let brokerDone = { self.brokerRestarted || self.plan.brokerStop == nil }
        let killsDone = {
            self.plan.powerCut == nil ? self.totalKills >= self.plan.minimumKills : self.powerCuts >= self.plan.cuts
        }
        while !(loadDone() && killsDone() && brokerDone() && outageServed && chainsDone()) {
            if timeline.failed { break }
            let elapsed = (ContinuousClock.now - started).seconds
            if let brokerStop = plan.brokerStop, !brokerStopped, elapsed >= brokerStop {
                try await broker("stop_app")
                brokerStopped = true
            } else if let brokerStop = plan.brokerStop, brokerStopped, !brokerRestarted,
                elapsed >= brokerStop + plan.brokerDown
            {
                try await broker("start_app")
                brokerRestarted = true
            }
            if !stubKilled, elapsed >= plan.outageStart {
                await stages.kill("stub-store")
                note("verify endpoint away (stub-store SIGKILL)")
                stubKilled = true
            } else if stubKilled, !outageServed, elapsed >= plan.outageStart + plan.outage {
                try stages.restart("stub-store")
                note("verify endpoint back (stub-store restarted on its port)")
                outageServed = true
            }
            try restartUnexpectedExits(except: stubKilled && !outageServed ? "stub-store" : nil)
            if let powerCut = plan.powerCut, elapsed >= nextCut {
                try await cutThePower(powerCut)
                nextCut = elapsed + (plan.cutInterval.map { Double.random(in: $0, using: &random) } ?? 0)
            } else {
                let target = plan.targets[Int.random(in: 0..<plan.targets.count, using: &random)]
                await stages.kill(target)
                try stages.restart(target)
                kills[target, default: 0] += 1
                note("SIGKILL \(target), restarted")
            }
            try await Task.sleep(for: .seconds(Double.random(in: plan.interval, using: &random)))
        }
        try restartUnexpectedExits(except: nil)
    }

    /// Every target SIGKILLed at the same instant, the volume's unsynced writes dropped, the
    /// volume back, every target started again.
    private func cutThePower(_ powerCut: @Sendable () async throws -> String) async throws {
        let answeredBefore = plan.cutCheck?.beforeCut() ?? 0
        plan.powerOff()
        await stages.killAll(plan.targets)
        let dropped = try await powerCut()
        for target in plan.targets {
            try stages.restart(target)
            kills[target, default: 0] += 1
        }
        powerCuts += 1
        note("power cut \(powerCuts): \(plan.targets.joined(separator: ", ")) SIGKILLed; \(dropped); restarted")
        if let check = plan.cutCheck {
            let (checked, found) = try await check.afterCut(powerCuts, answeredBefore: answeredBefore)
            cutViolations += found
            note(
                "after power cut \(powerCuts): \(checked) receipts answered 202 since the last check asked for, "
                    + (found.isEmpty ? "all there, iap audit clean" : "\(found.count) violations"))
        }
    }

    /// After a failed run: RabbitMQ's app started again if this stopped it, so that a broken
    /// run never leaves the broker down.
    func recover() async {
        if brokerStopped, !brokerRestarted { try? await broker("start_app") }
        let records = faults
        for (fault, index) in chains.joined() where records[index].began != nil && records[index].ended == nil {
            note("\(fault.name): undone after the failure")
            await fault.recover()
        }
    }

    /// Starts again any stage that exited without being killed here.
    func restartUnexpectedExits(except spared: String?) throws {
        for stage in stages.exited where stage.name != spared {
            unexpectedExits[stage.name, default: 0] += 1
            let ending = stages.ending(of: stage.name)
            if ending.crashed { crashes.append("\(stage.name) \(ending.summary) (see \(stage.log))") }
            note("\(stage.name) had exited on its own (\(ending.summary)); restarted (see \(stage.log))")
            try stages.restart(stage.name)
        }
    }

    private func broker(_ command: String) async throws {
        let node = plan.rabbitmqNode.map { ["-n", $0] } ?? []
        let rabbitmqctl = plan.rabbitmqctl ?? { try await Rabbitmqctl.output(node + $0) }
        note("rabbitmqctl \(command)")
        _ = try await rabbitmqctl([command])
        if command == "start_app" { _ = try await rabbitmqctl(["await_startup"]) }
        note("rabbitmqctl \(command) done")
    }

    private func note(_ event: String) { timeline.note(event) }
}
