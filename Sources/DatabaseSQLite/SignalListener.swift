import Database
import Foundation
import Glibc
import PipelineCore

/// The listening end of a ``CommitBell`` channel: the lock held, the socket bound, and a
/// thread of its own blocked in `poll` until a ring or the end comes.
final class SignalListener: Sendable {
    private let path: String
    /// Held while listening: another process's listener takes it only once this one ends.
    private let lock: FileLock
    private let socketFD: Int32
    /// A pipe: its write end ends the receiving thread, which polls its read end.
    private let stopRead: Int32
    private let stopWrite: Int32

    /// Why a process is not the listener.
    enum Refusal: Error, Equatable {
        /// Another process holds the lock: it listens.
        case otherListens
        /// The lock is this process's, but the socket could not be made or bound.
        case cannotBind(String)
    }

    /// The listener, or why this process cannot be it.
    static func open(path: String, address: UnixSocketAddress) -> Result<SignalListener, Refusal> {
        let lock = FileLock(path: path + ".lock")
        guard lock.take() else { return .failure(.otherListens) }
        return Result { () throws(Refusal) in try SignalListener(path: path, address: address, lock: lock) }
    }

    private init(path: String, address: UnixSocketAddress, lock: FileLock) throws(Refusal) {
        // Holding the lock, a socket file left there is a dead listener's.
        unlink(path)
        let receiving = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var pipeFDs: [Int32] = [-1, -1]
        if pipe(&pipeFDs) == 0 {
            for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        guard receiving >= 0, pipeFDs[0] >= 0, address.withSockaddr({ bind(receiving, $0, $1) }) == 0 else {
            let reason = String(cString: strerror(errno))
            for fd in [receiving, pipeFDs[0], pipeFDs[1]] where fd >= 0 { close(fd) }
            throw .cannotBind(reason)
        }
        // The database's own mode: only its owner may ring.
        chmod(path, 0o600)
        self.path = path
        self.lock = lock
        socketFD = receiving
        (stopRead, stopWrite) = (pipeFDs[0], pipeFDs[1])
    }

    deinit {
        // Removed while the lock is still held (it goes with this listener, after the body):
        // the next listener binds a socket of its own.
        unlink(path)
        for fd in [socketFD, stopRead, stopWrite] { close(fd) }
    }

    /// Calls `heard` once per burst of rings until the task is cancelled; then gives the
    /// lock up, so that another process can listen.
    func receive(_ heard: @escaping @Sendable () -> Void) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread(named: "iap-commit-bell") { [self] in
                    receiveUntilStopped(heard)
                    done.resume()
                }.start()
            }
        } onCancel: {
            var one: UInt8 = 1
            _ = write(stopWrite, &one, 1)
        }
    }

    static let pauseMilliseconds: Int32 = 20

    private func receiveUntilStopped(_ heard: () -> Void) {
        var fds = [
            pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents != 0 else { continue }
            // Every ring that came meanwhile is one look.
            while recv(socketFD, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
            heard()
            // Then a pause, the notifier's own pace while traffic flows: at a hundred commits a
            // second this thread wakes fifty times, and the rings of the pause are one look.
            if poll(&fds[1], 1, Self.pauseMilliseconds) > 0 { return }
        }
    }
}
