import PipelineCore

/// How long a commit of one receipt waits for a second, sized to the arrival rate.
///
/// Each commit costs the same (a sync, a wake-up of the writer, a publish and its confirm)
/// whether it carries one receipt or twenty. Above a few hundred receipts a second the
/// commits that ran back to back carried one each; waiting for the next arrival, when it is
/// due within `maxWait`, halves them there. At 400 receipts/s a 2.5 ms wait took the intake's
/// CPU per receipt down 12-14 % and the broker's 9-12 % (the whole machine's 8-9 %), for
/// 2 ms more at p50 (BENCHMARKS.md, "The group commit waits for company"). Below
/// 1 / `maxWait` arrivals a second nothing waits: the next receipt would not come in time.
struct CommitPacing: Sendable {
    /// The longest a commit waits; zero: never (`IAP_INTAKE_COMMIT_WAIT_MS`).
    let maxWait: Duration
    /// The gap between arrivals, smoothed over the last few, in seconds; nil before two.
    private(set) var gap: Double?
    private var last: ContinuousClock.Instant?

    init(maxWait: Duration) {
        self.maxWait = maxWait
    }

    /// Notes a receipt's arrival.
    mutating func arrived(at now: ContinuousClock.Instant) {
        defer { last = now }
        guard let last else { return }
        // An idle minute counts as a second: one quiet spell should not take long to forget.
        let sample = min((now - last).seconds, 1)
        gap = gap.map { $0 * 0.8 + sample * 0.2 } ?? sample
    }

    /// How long a commit of `pending` receipts waits before it starts; nil: it starts now.
    func wait(pending: Int) -> Duration? {
        guard pending == 1, maxWait > .zero, let gap else { return nil }
        let due = Duration.seconds(gap)
        return due <= maxWait ? due : nil
    }
}
