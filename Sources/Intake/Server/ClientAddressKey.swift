import Hummingbird
import NIOCore

/// Whom a limit counts a client as: an IPv4 address whole, an IPv6 address by its /64 (one
/// subscriber's network: each has billions of addresses, so a client counted by its full
/// address would take a fresh bucket per request), IPv4 mapped into IPv6 (`::ffff:a.b.c.d`,
/// a dual-stack socket's view of an IPv4 client) as that IPv4 address. A client whose address
/// is unknown (none, or a Unix socket) is counted as one client.
///
/// The one key of every per-client limit of the intake: the connection cap
/// (``ConnectionLimiter``) and the notification routes' rate limit.
///
/// ```swift
/// let key = ClientAddressKey(channel.remoteAddress)   // 2001:db8:1:2::9 counts as 2001:db8:1:2::/64
/// ```
public struct ClientAddressKey: Hashable, Sendable {
    /// 4 bytes for IPv4, the first 8 for IPv6, none when unknown: the lengths keep the kinds apart.
    private let bytes: [UInt8]

    /// The key of a client at `address`.
    /// - Parameter address: The connection's remote address; nil when unknown.
    public init(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4):
            bytes = withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            let all = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let mapped = all[0..<10].allSatisfy { $0 == 0 } && all[10] == 0xff && all[11] == 0xff
            bytes = mapped ? Array(all[12..<16]) : Array(all[0..<8])
        default:
            bytes = []
        }
    }
}

extension RemoteAddressRequestContext {
    /// The key the client of this request is limited by (``ClientAddressKey``).
    public var clientKey: ClientAddressKey {
        ClientAddressKey(remoteAddress)
    }
}
