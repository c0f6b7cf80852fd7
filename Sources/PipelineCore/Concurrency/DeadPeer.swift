import Glibc

/// How soon a TCP connection whose peer went silent (its packets dropped, not refused; the
/// peer not stopped) is given up by the kernel, for the connections to the broker and the
/// database: nothing else ends such a connection for about a quarter of an hour.
///
/// Two socket options do it, whatever the connection is doing:
/// - `TCP_USER_TIMEOUT` = ``timeout``: bytes sent and not acknowledged for that long (a
///   statement, a publish, a heartbeat into the silence) end the connection;
/// - keepalive probes from ``keepaliveIdle`` of quiet on, every ``keepaliveInterval``: a
///   connection that sends nothing (an idle pooled connection, one awaiting a long answer)
///   ends once `timeout` has passed without an answer, at the first probe after it (Linux
///   counts the user timeout, not the probes, once one is set).
///
/// So a silent peer is noticed within `timeout` + `keepaliveInterval` of its last packet.
public struct DeadPeer: Sendable, Hashable, CustomStringConvertible {
    /// Whole seconds, at least 2.
    public let timeout: Duration

    /// - Parameter timeout: rounded down to whole seconds, at least 2.
    public init(timeout: Duration) {
        self.timeout = .seconds(max(2, timeout.components.seconds))
    }

    private var seconds: Int32 { Int32(clamping: timeout.components.seconds) }

    /// Seconds of quiet before the first probe: half the timeout.
    public var keepaliveIdle: Int32 { max(1, seconds / 2) }
    /// Seconds between probes: a fifth of the timeout.
    public var keepaliveInterval: Int32 { max(1, seconds / 5) }
    /// Probes before giving up, for a kernel that ignores the user timeout: enough to reach it.
    public var keepaliveCount: Int32 {
        max(1, (seconds - keepaliveIdle + keepaliveInterval - 1) / keepaliveInterval)
    }
    public var userTimeoutMilliseconds: Int32 { seconds * 1000 }

    /// The options as `setsockopt` takes them: (level, name, value).
    public var socketOptions: [(level: Int32, name: Int32, value: Int32)] {
        [
            (SOL_SOCKET, SO_KEEPALIVE, 1),
            (Int32(IPPROTO_TCP), TCP_KEEPIDLE, keepaliveIdle),
            (Int32(IPPROTO_TCP), TCP_KEEPINTVL, keepaliveInterval),
            (Int32(IPPROTO_TCP), TCP_KEEPCNT, keepaliveCount),
            (Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, userTimeoutMilliseconds),
        ]
    }

    /// Sets the options on a connected TCP socket.
    /// - Throws: ``DeadPeerError`` naming the option the kernel refused.
    public func apply(toSocket socket: Int32) throws(DeadPeerError) {
        for option in socketOptions {
            var value = option.value
            guard setsockopt(socket, option.level, option.name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
            else { throw DeadPeerError(option: option.name, errno: errno) }
        }
    }

    /// What a socket carries now, in the order of ``socketOptions``; nil when it cannot be read
    /// (closed). For tests and diagnostics.
    public static func read(socket: Int32) -> [Int32]? {
        var values: [Int32] = []
        for option in DeadPeer(timeout: .seconds(2)).socketOptions {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socket, option.level, option.name, &value, &length) == 0 else { return nil }
            values.append(value)
        }
        return values
    }

    /// The values ``read(socket:)`` finds on a socket these options were applied to.
    public var expected: [Int32] { socketOptions.map(\.value) }

    public var description: String {
        "user timeout \(seconds) s, keepalive after \(keepaliveIdle) s every \(keepaliveInterval) s"
    }
}

/// The kernel refused one of the dead-peer options.
public struct DeadPeerError: Error, CustomStringConvertible {
    public let option: Int32
    public let errno: Int32

    public var description: String {
        "cannot set socket option \(option): \(String(cString: strerror(errno)))"
    }
}
