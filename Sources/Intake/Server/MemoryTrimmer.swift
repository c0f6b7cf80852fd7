import Foundation
import PipelineCore
import Synchronization

/// Gives memory back to the system after a flood of connections drops. glibc's malloc keeps
/// what freed connections leave in its arenas: issue 25's intake grew from 115 MB to 790 MB
/// under a siege and kept it after. `malloc_trim(0)` returns the free pages, once the open
/// connections have fallen by ``drop`` since the last look, on a thread of its own (it
/// walks every arena), at most once per ``spacing``.
final class MemoryTrimmer: Sendable {
    /// How far the open connections must fall from their high mark before a trim.
    let drop: Int
    let spacing: Duration

    private struct State {
        var highMark = 0
        var scheduled = false
        var last: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let trim: (@Sendable () -> Void)?

    init(drop: Int = 1000, spacing: Duration = .seconds(10)) {
        self.drop = drop
        self.spacing = spacing
        self.trim = Self.mallocTrim()
    }

    /// Called as connections close, with how many are still open.
    func connectionsDropped(to open: Int) {
        guard let trim else { return }
        let delay: Duration? = state.withLock { state in
            state.highMark = max(state.highMark, open + 1)
            guard !state.scheduled, state.highMark - open >= drop else { return nil }
            state.scheduled = true
            let earliest = state.last.map { $0 + spacing } ?? .now
            // A second later at least: the rest of the flood closes meanwhile and is trimmed too.
            return max(earliest - .now, .seconds(1))
        }
        guard let delay else { return }
        Thread(named: "iap-mem-trim") { [self] in
            Thread.sleep(
                forTimeInterval: Double(delay.components.seconds) + 1e-18 * Double(delay.components.attoseconds))
            trim()
            state.withLock { state in
                state.scheduled = false
                state.last = .now
                state.highMark = 0
            }
        }.start()
    }

    /// glibc's `malloc_trim`, looked up at run time: other C libraries have none.
    private static func mallocTrim() -> (@Sendable () -> Void)? {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
        let function = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        return { _ = function(0) }
    }
}
