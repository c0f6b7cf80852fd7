import Database
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// Rings the notifier's doorbell when another process commits webhooks to the outbox,
/// where the database can say so (PostgreSQL's `LISTEN`): the notifier then looks when
/// there is work, not every ``Notifier/Configuration/activePollInterval`` while traffic
/// flows. While the listener is not connected, the notifier still looks every
/// ``Notifier/Configuration/pollInterval``, so nothing waits longer than that.
public struct OutboxListener: Service {
    let signals: any CommitSignals
    let doorbell: Doorbell

    public init(signals: any CommitSignals, doorbell: Doorbell) {
        self.signals = signals
        self.doorbell = doorbell
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { [signals, doorbell] in
            await signals.listen(to: .outbox) { doorbell.ring() }
        }
    }
}
