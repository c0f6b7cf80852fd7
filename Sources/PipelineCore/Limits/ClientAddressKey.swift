#if canImport(Glibc)
import Glibc
#endif

/// Whom a limit counts a client as: an IPv4 address whole, an IPv6 address by its /64 (one
/// subscriber's network: each has billions of addresses, so a client counted by its full
/// address would take a fresh bucket per request), IPv4 mapped into IPv6 (`::ffff:a.b.c.d`,
/// a dual-stack socket's view of an IPv4 client) as that IPv4 address. A client whose address
/// is unknown (none, or a Unix socket) is counted as one client.
///
/// The one key of every per-client limit: the intake's connection cap and its notification
/// routes' rate limit, and the console's login throttle.
///
/// ```swift
/// let key = ClientAddressKey(ipAddress: "2001:db8:1:2::9")   // counts as 2001:db8:1:2::/64
/// ```
public struct ClientAddressKey: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, the first 8 for IPv6, none when unknown: the lengths keep the kinds apart.
    private let bytes: [UInt8]

    /// The key of an IPv4 address (its 4 bytes) or an IPv6 one (its 16), in network order;
    /// any other length is an unknown address.
    public init(addressBytes all: [UInt8]) {
        switch all.count {
        case 4:
            bytes = all
        case 16:
            let mapped = all[0..<10].allSatisfy { $0 == 0 } && all[10] == 0xff && all[11] == 0xff
            bytes = mapped ? Array(all[12..<16]) : Array(all[0..<8])
        default:
            bytes = []
        }
    }

    /// The key of the client at `ipAddress` (`192.0.2.7`, `2001:db8::1`); nil or text that is
    /// no IP address is an unknown address.
    public init(ipAddress: String?) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if let ipAddress, inet_pton(AF_INET, ipAddress, &v4) == 1 {
            self.init(addressBytes: withUnsafeBytes(of: v4) { Array($0) })
        } else if let ipAddress, inet_pton(AF_INET6, ipAddress, &v6) == 1 {
            self.init(addressBytes: withUnsafeBytes(of: v6) { Array($0) })
        } else {
            self.init(addressBytes: [])
        }
    }

    /// `192.0.2.7`, `2001:db8:1:2::/64`, or `unknown`.
    public var description: String {
        switch bytes.count {
        case 4: return bytes.map(String.init).joined(separator: ".")
        case 8:
            let groups = stride(from: 0, to: 8, by: 2).map {
                String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
            }
            return groups.joined(separator: ":") + "::/64"
        default: return "unknown"
        }
    }
}
