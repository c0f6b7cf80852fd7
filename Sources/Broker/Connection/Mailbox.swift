import Glibc
import Synchronization

/// Commands for a connection's owner thread. Senders append under a lock and wake the
/// thread through a pipe that it polls beside the socket; only the send that finds the
/// mailbox empty pays for the wake-up.
final class Mailbox<Command: Sendable>: Sendable {
    private let queue = Mutex<[Command]>([])
    /// The read end of the wake-up pipe, for `poll`.
    let eventFD: Int32
    private let wakeFD: Int32

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe failed: \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        eventFD = fds[0]
        wakeFD = fds[1]
    }

    deinit {
        close(eventFD)
        close(wakeFD)
    }

    func send(_ command: Command) {
        let wasEmpty = queue.withLock { queue in
            queue.append(command)
            return queue.count == 1
        }
        if wasEmpty { wake() }
    }

    func send(contentsOf commands: [Command]) {
        let wasEmpty = queue.withLock { queue in
            let wasEmpty = queue.isEmpty
            queue.append(contentsOf: commands)
            return wasEmpty
        }
        if wasEmpty { wake() }
    }

    /// Takes every waiting command; called only by the owner thread.
    func drain() -> [Command] {
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &scratch, { read(eventFD, $0.baseAddress, $0.count) }) > 0 {}
        return queue.withLock { queue in
            guard !queue.isEmpty else { return [] }
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
    }

    var isEmpty: Bool { queue.withLock { $0.isEmpty } }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeFD, &one, 1)
    }
}
