import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// An attacker's slow bodies (issue 25): `slots` connections from one address, each
/// announcing a 1,000-byte receipt and trickling it one byte every `interval`, so that an
/// idle timeout never fires. A slot whose connection the server closed (or refused) is
/// opened again at its next turn, as a persistent attacker would. Bounded: it stops when
/// ``stop()`` is called.
final class SlowBodySiege: Sendable {
    struct Counts: Sendable {
        /// Connections open right now.
        var open = 0
        /// Connections the server accepted at the TCP level (connect succeeded).
        var connected = 0
        /// Connections the server closed (at accept, or later), while the siege went on.
        var closedByServer = 0
        /// Connects that failed (refused, timed out, no port left).
        var failedConnects = 0
    }

    private final class Slot: @unchecked Sendable {
        // Touched only on the siege's one event loop.
        var channel: (any Channel)?
        var connecting = false
    }

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let slots: [Slot]
    private let port: Int
    private let interval: TimeAmount
    private let counts = Mutex(Counts())
    private let task = Mutex<RepeatedTask?>(nil)
    private let ticks = Mutex(0)
    private let stopping = Mutex(false)
    private static let head =
        "POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"

    init(port: Int, slots: Int, interval: TimeAmount = .seconds(10)) {
        self.port = port
        self.slots = (0..<slots).map { _ in Slot() }
        self.interval = interval
    }

    var current: Counts { counts.withLock { $0 } }

    /// Every 100 ms a tenth of a tenth of the slots has its turn, so each slot's turn comes
    /// once per `interval` and the first connects ramp up over one interval.
    func start() {
        let loop = group.next()
        let turns = Int(interval.nanoseconds / 100_000_000)
        let repeated = loop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(100)) { [self] _ in
            let tick = ticks.withLock { ticks in
                defer { ticks += 1 }
                return ticks % turns
            }
            for index in stride(from: tick, to: slots.count, by: turns) { turn(slots[index], on: loop) }
        }
        task.withLock { $0 = repeated }
    }

    private func turn(_ slot: Slot, on loop: any EventLoop) {
        if let channel = slot.channel {
            channel.writeAndFlush(ByteBuffer(string: "x"), promise: nil)
            return
        }
        guard !slot.connecting else { return }
        slot.connecting = true
        let connect = ClientBootstrap(group: loop).connectTimeout(.seconds(5)).connect(host: "127.0.0.1", port: port)
        connect.whenComplete { [self] result in
            slot.connecting = false
            switch result {
            case .failure:
                counts.withLock { $0.failedConnects += 1 }
            case .success(let channel):
                slot.channel = channel
                counts.withLock {
                    $0.connected += 1
                    $0.open += 1
                }
                channel.closeFuture.whenComplete { [self] _ in
                    slot.channel = nil
                    let byServer = !stopping.withLock { $0 }
                    counts.withLock {
                        $0.open -= 1
                        if byServer { $0.closedByServer += 1 }
                    }
                }
                channel.writeAndFlush(ByteBuffer(string: Self.head), promise: nil)
            }
        }
    }

    /// Stops the turns and closes every connection, as an attacker who gives up.
    func stop() async throws {
        stopping.withLock { $0 = true }
        task.withLock { $0?.cancel() }
        let loop = group.next()
        try await loop.submit { [self] in
            for slot in slots { slot.channel?.close(promise: nil) }
        }.get()
        try await group.shutdownGracefully()
    }
}
