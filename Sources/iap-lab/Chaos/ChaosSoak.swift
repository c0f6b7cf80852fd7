import ArgumentParser
import Drills
import Foundation
import Synchronization

/// `iap-lab chaos --soak MINUTES`: a long run at a steady rate with a SIGKILL a minute and a
/// power cut every ten, sampling what a leak would make grow.
struct ChaosSoakOptions: ParsableArguments {
    @Option(
        help: """
            Soak for this many minutes (needs --power): --soak-rate receipts a second, a stage SIGKILLed about \
            every --soak-kill-every seconds and the power cut about every --soak-cut-every, and every \
            --sample-seconds each process's RSS and open files, the queues' depth and the database's size per \
            receipt, printed and kept in soak.csv.
            """)
    var soak: Int?
    @Option(help: "Receipts a second during --soak.") var soakRate = 200.0
    @Option(help: "Seconds between --soak's SIGKILLs (±10 %).") var soakKillEvery = 60.0
    @Option(help: "Seconds between --soak's power cuts (±5 %).") var soakCutEvery = 600.0
    @Option(help: "Seconds between --soak's samples.") var sampleSeconds = 30.0

    func validate() throws {
        guard let soak else { return }
        guard soak > 0, soakRate > 0, sampleSeconds > 0, soakKillEvery > 0, soakCutEvery > soakKillEvery else {
            throw ValidationError(
                "--soak, --soak-rate, --sample-seconds and --soak-kill-every must be positive, --soak-cut-every longer")
        }
    }

    /// Cuts in the soak (one at least), and the seconds between kills and between cuts.
    var schedule: (cuts: Int, killEvery: ClosedRange<Double>, cutEvery: ClosedRange<Double>)? {
        soak.map { minutes in
            (
                max(1, Int(Double(minutes) * 60 / soakCutEvery)), soakKillEvery * 0.9...soakKillEvery * 1.1,
                soakCutEvery * 0.95...soakCutEvery * 1.05
            )
        }
    }
}

/// One moment of a soak.
struct SoakSample: Sendable {
    var seconds: Double
    /// Receipts whose webhook was taken so far.
    var receipts: Int
    /// The database's files on its volume (SQLite's with its WAL, or PostgreSQL's data directory).
    var databaseBytes: Int
    /// Messages in the pipeline's queues, ready and unacknowledged (nil: the broker did not answer).
    var queued: Int?
    /// Resident KiB and open descriptors per process (stages, database server).
    var processes: [String: (rssKiB: Int, files: Int)]
}

/// Takes a ``SoakSample`` every few seconds.
final class SoakSampler: Sendable {
    private let samples = Mutex<[SoakSample]>([])
    var taken: [SoakSample] { samples.withLock { $0 } }

    /// Samples for `seconds` (the load's, so that the quiet after it does not water the last quarter down).
    func run(
        every interval: Double, for seconds: Double, stages: StageProcesses, power: ChaosPower,
        webhooks: WebhookCounter, queueDepths: @escaping @Sendable () async throws -> [String: Int?]
    ) async {
        let started = ContinuousClock.now
        while !Task.isCancelled, (ContinuousClock.now - started).seconds < seconds {
            try? await Task.sleep(for: .seconds(interval))
            var processes = stages.processIDs.compactMapValues(Self.usage)
            if let postgres = power.postgres { processes["postgres"] = Self.usage(postgres.processIDs) }
            processes["rabbitmq"] = Self.usage(power.broker.processIDs)
            let depths = try? await queueDepths()
            let sample = SoakSample(
                seconds: (ContinuousClock.now - started).seconds, receipts: webhooks.receiptsSeen,
                databaseBytes: Self.bytes(under: power.volume.mountpoint),
                queued: depths.map { $0.values.reduce(0) { $0 + ($1 ?? 0) } }, processes: processes)
            samples.withLock { $0.append(sample) }
        }
    }

    /// A process's resident KiB (`VmRSS`) and open descriptors; nil once it is gone.
    static func usage(_ pid: pid_t) -> (rssKiB: Int, files: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ").dropFirst().first ?? ""),
            let files = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        return (kib, files.count)
    }

    /// A server's processes' resident KiB and open descriptors, summed; nil when none runs.
    static func usage(_ pids: [pid_t]) -> (rssKiB: Int, files: Int)? {
        let all = pids.compactMap { usage($0) }
        return all.isEmpty ? nil : all.reduce((0, 0)) { ($0.0 + $1.rssKiB, $0.1 + $1.files) }
    }

    /// The sizes of every regular file under `path`.
    static func bytes(under path: String) -> Int {
        guard let walk = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        while walk.nextObject() != nil {
            if walk.fileAttributes?[.type] as? FileAttributeType == .typeRegular {
                total += (walk.fileAttributes?[.size] as? Int) ?? 0
            }
        }
        return total
    }
}

/// What a soak's samples say: a CSV of them all, and the first and last quarter side by side.
struct SoakSummary {
    let samples: [SoakSample]

    var csv: String {
        let names = Set(samples.flatMap(\.processes.keys)).sorted()
        let header =
            ["seconds", "receipts", "database_bytes", "bytes_per_receipt", "queued"]
            + names.flatMap { ["\($0)_rss_kib", "\($0)_fds"] }
        let rows = samples.map { sample in
            [
                String(format: "%.0f", sample.seconds), "\(sample.receipts)", "\(sample.databaseBytes)",
                sample.receipts > 0 ? "\(sample.databaseBytes / sample.receipts)" : "",
                sample.queued.map(String.init) ?? "",
            ]
                + names.flatMap { name in
                    sample.processes[name].map { ["\($0.rssKiB)", "\($0.files)"] } ?? ["", ""]
                }
        }
        return ([header] + rows).map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n"
    }

    /// Lines for the report: each figure's mean over the first and the last quarter of the samples.
    var lines: [String] {
        guard samples.count >= 4 else { return ["too few samples (\(samples.count)) to compare quarters"] }
        let quarter = samples.count / 4
        let (early, late) = (Array(samples.prefix(quarter)), Array(samples.suffix(quarter)))
        func mean(_ part: [SoakSample], _ value: (SoakSample) -> Int?) -> String {
            let values = part.compactMap(value)
            return values.isEmpty ? "-" : "\(values.reduce(0, +) / values.count)"
        }
        func row(_ name: String, _ value: @escaping (SoakSample) -> Int?) -> String {
            name.padding(toLength: 26, withPad: " ", startingAt: 0) + " first quarter \(mean(early, value)), "
                + "last quarter \(mean(late, value)), max \(samples.compactMap(value).max().map(String.init) ?? "-")"
        }
        var lines = [
            "\(samples.count) samples over \(Int(samples.last!.seconds)) s; \(samples.last!.receipts) receipts settled",
            row("database bytes/receipt") { $0.receipts > 1000 ? $0.databaseBytes / $0.receipts : nil },
            row("queued messages") { $0.queued },
        ]
        for name in Set(samples.flatMap(\.processes.keys)).sorted() {
            lines.append(row("\(name) RSS KiB") { $0.processes[name]?.rssKiB })
            lines.append(row("\(name) open files") { $0.processes[name]?.files })
        }
        return lines
    }
}
