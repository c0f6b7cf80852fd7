import Foundation
import Glibc
import Store
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
    /// Sends, unbound; opened at the first ring.
    private let sender = Mutex<Int32>(-1)

    /// Nil when `databasePath` is too long for a socket's name beside it.
    init?(databasePath: String) {
        guard CommitChannel.allCases.allSatisfy({ Self.address(Self.socketPath(databasePath, $0)) != nil }) else {
            return nil
        }
        self.databasePath = databasePath
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
                guard var address = Self.address(Self.socketPath(databasePath, channel)) else { continue }
                var byte: UInt8 = 1
                // No listener (ENOENT, ECONNREFUSED) or its buffer full (EAGAIN): nothing to do.
                _ = withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, &byte, 1, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
        }
    }

    /// Calls `heard` after the socket is bound, and then once for each burst of rings,
    /// until the task is cancelled.
    func listen(to channel: CommitChannel, heard: @escaping @Sendable () -> Void) async {
        let path = Self.socketPath(databasePath, channel)
        while !Task.isCancelled {
            if let listener = SignalListener(path: path) {
                heard()  // whatever was signalled before the socket was bound
                await listener.receive(heard)
            } else {
                try? await Task.sleep(for: Self.retryInterval)
            }
        }
    }

    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }
}
