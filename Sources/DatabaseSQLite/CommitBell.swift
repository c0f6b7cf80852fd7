import Database
import Foundation
import Glibc
import Logging
import SettlementWriter
import Synchronization

/// PostgreSQL's `LISTEN`/`NOTIFY` for the processes sharing one SQLite file: a Unix datagram
/// socket beside it per channel (`<db>.iap_outbox.sock`). A commit that signalled a channel
/// sends one byte to it, without waiting, and nothing when no one listens. One process
/// listens at a time, the one holding the lock file beside the socket (the kernel lets go of
/// it when that process dies, so a stale socket is replaced, never a live one); any other
/// tries again every few seconds, and its notifier meanwhile looks at its idle pace.
///
/// A path the socket's name cannot hold (over 107 bytes) has no bell: its notifiers poll.
final class CommitBell: Sendable {
    /// How often a process that is not the listener tries to become it.
    static let retryInterval: Duration = .seconds(2)

    private let databasePath: String
    /// Each channel's socket.
    private let addresses: [CommitChannel: UnixSocketAddress]
    /// Sends, unbound; opened at the first ring.
    private let sender = Mutex<Int32>(-1)

    /// Nil when `databasePath` is too long for a socket's name beside it.
    init?(databasePath: String) {
        var addresses: [CommitChannel: UnixSocketAddress] = [:]
        for channel in CommitChannel.allCases {
            guard let address = UnixSocketAddress(path: Self.socketPath(databasePath, channel)) else { return nil }
            addresses[channel] = address
        }
        self.databasePath = databasePath
        self.addresses = addresses
    }

    deinit {
        sender.withLock { if $0 >= 0 { close($0) } }
    }

    static func socketPath(_ databasePath: String, _ channel: CommitChannel) -> String {
        databasePath + "." + channel.rawValue + ".sock"
    }

    /// Tells each channel's listener, if any, that a commit signalled it.
    func ring(_ channels: Set<CommitChannel>) {
        sender.withLock { fd in
            if fd < 0 { fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
            guard fd >= 0 else { return }
            for channel in channels {
                var byte: UInt8 = 1
                // No listener (ENOENT, ECONNREFUSED) or its buffer full (EAGAIN): nothing to do.
                _ = addresses[channel]?.withSockaddr { sendto(fd, &byte, 1, Int32(MSG_DONTWAIT), $0, $1) }
            }
        }
    }

    /// Calls `heard` after the socket is bound, and then once for each burst of rings,
    /// until the task is cancelled.
    func listen(to channel: CommitChannel, heard: @escaping @Sendable () -> Void) async {
        let path = Self.socketPath(databasePath, channel)
        guard let address = addresses[channel] else { return }
        var reported: String?
        while !Task.isCancelled {
            switch SignalListener.open(path: path, address: address) {
            case .success(let listener):
                reported = nil
                heard()  // whatever was signalled before the socket was bound
                await listener.receive(heard)
            case .failure(let refusal):
                // Said once, not every retry: until it binds, this process's notifier looks
                // at its idle pace and another process's commits reach it late.
                if case .cannotBind(let reason) = refusal, reported != reason {
                    reported = reason
                    Self.logger.warning(
                        "cannot listen for commits on the SQLite file's socket; webhooks wait for the notifier's next look",
                        metadata: ["socket": "\(path)", "error": "\(reason)"])
                }
                try? await Task.sleep(for: Self.retryInterval)
            }
        }
    }

    private static let logger = Logger(label: "iap.sqlite.commit-signals")
}
