import NIOCore
import Observability
import PipelineCore
import Synchronization

/// Counts the intake's open connections, in all and per client (``ClientAddressKey``: an
/// IPv6 client by its /64), and refuses those over either cap at accept, before anything is
/// read from them: one address cannot take the descriptors every other client needs (issue
/// 25: 20,000 slow bodies from one address took the process's every file).
final class ConnectionLimiter: Sendable {
    struct Limits: Sendable, Equatable {
        var total: Int
        var perAddress: Int
    }

    private struct State {
        var total = 0
        var byAddress: [ClientAddressKey: Int] = [:]
    }

    let limits: Limits
    private let state = Mutex(State())
    private let trimmer: MemoryTrimmer

    init(_ limits: Limits, trimmer: MemoryTrimmer = MemoryTrimmer()) {
        self.limits = limits
        self.trimmer = trimmer
    }

    /// Whether the intake serves `channel`; if not, it is closed at once with a reset, which
    /// leaves nothing behind (no TIME_WAIT), and counted. Admitted, it is counted until it closes.
    func admit(_ channel: any Channel) -> Bool {
        let key = ClientAddressKey(channel.remoteAddress)
        let refusal: PipelineMetrics.ConnectionRefusal? = state.withLock { state in
            if state.total >= limits.total { return .total }
            if state.byAddress[key, default: 0] >= limits.perAddress { return .perAddress }
            state.total += 1
            state.byAddress[key, default: 0] += 1
            return nil
        }
        if let refusal {
            PipelineMetrics.connectionsRefused(refusal).increment()
            _ = (channel as? any SocketOptionProvider)?.setSoLinger(NIOLinger(l_onoff: 1, l_linger: 0))
            channel.close(promise: nil)
            return false
        }
        PipelineMetrics.connectionsOpen.increment()
        channel.closeFuture.whenComplete { _ in self.release(key) }
        return true
    }

    /// Open connections right now, for tests.
    var open: Int { state.withLock { $0.total } }

    private func release(_ key: ClientAddressKey) {
        let total = state.withLock { state in
            state.total -= 1
            let left = state.byAddress[key, default: 1] - 1
            state.byAddress[key] = left > 0 ? left : nil
            return state.total
        }
        PipelineMetrics.connectionsOpen.decrement()
        trimmer.connectionsDropped(to: total)
    }
}

extension ConnectionLimiter.Limits {
    /// Descriptors kept for all but client connections: the database, the broker, the HTTP
    /// clients, the logs.
    static let reservedFiles = 256

    /// These caps, lowered to fit under `openFiles` descriptors.
    func fitted(underOpenFiles openFiles: Int) -> Self {
        let total = max(1, min(total, openFiles - Self.reservedFiles))
        return .init(total: total, perAddress: min(perAddress, total))
    }
}
