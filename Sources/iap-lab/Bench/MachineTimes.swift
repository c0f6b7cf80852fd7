import Foundation
import PipelineCore

/// The whole machine's CPU time: the runtime of every process and kernel thread, read from
/// `/proc/<pid>/stat` with what their ended children used.
///
/// Not `/proc/stat`'s busy ticks, which are sampled: each timer tick charges a whole tick to
/// whatever its CPU is doing at that instant. Below saturation a receipt's work comes in bursts
/// shorter than a tick, paced by the load: at 100 receipts/s every 10 ms, this kernel's tick
/// period, so the bursts stay in step with the ticks and a run counts nearly all of them or
/// nearly none (BENCHMARKS.md, "What the machine's ticks count": 0.3 to 2.1 ms a message for
/// processes whose own runtime was 0.53). A process's utime and stime add up to its runtime as
/// the scheduler measured it, rounded to ticks.
///
/// Missed: interrupts taken while a CPU was idle, and a process that ended during the window
/// without a parent to collect it (its earlier time then leaves the sum).
struct MachineTimes: Sendable {
    /// Clock ticks of CPU time used so far by every process alive, and the ended ones they reaped.
    var busy: Int
    var taken: ContinuousClock.Instant

    init() {
        taken = .now
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        busy = entries.reduce(0) { total, entry in
            guard entry.first?.isNumber == true,
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return total }
            // After the name: utime, stime, cutime and cstime are fields 14-17 of the man page.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 14 else { return total }
            return total + fields[11...14].reduce(0) { $0 + (Int($1) ?? 0) }
        }
    }

    /// CPU seconds all cores spent busy between `earlier` and `self`.
    func busySeconds(since earlier: MachineTimes) -> Double {
        Double(busy - earlier.busy) / Double(ProcessUsage.ticksPerSecond)
    }

    /// The busy share of all cores between `earlier` and `self`, 0...1.
    func busyShare(since earlier: MachineTimes) -> Double {
        let capacity = (taken - earlier.taken).seconds * Double(Self.cores)
        return capacity > 0 ? min(busySeconds(since: earlier) / capacity, 1) : 0
    }

    static let cores = max(sysconf(Int32(_SC_NPROCESSORS_ONLN)), 1)
}
