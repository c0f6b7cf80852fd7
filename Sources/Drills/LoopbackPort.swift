import Foundation
import Synchronization

/// Ports on 127.0.0.1 for servers that a benchmark or test starts and must name first.
public enum LoopbackPort {
    /// A TCP port free on loopback, for a server to bind once this returns.
    ///
    /// Drawn below the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range),
    /// which is where every port bound to 0 comes from: a port found free here cannot be
    /// handed to another process's socket before the server binds it (tests running beside
    /// bind ports all the time).
    ///
    /// A port handed out once is never handed out again by this process: several picked
    /// before any is bound (a stub's, an intake's, an admin port's) are distinct.
    public static func free() -> Int {
        let range =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) } ?? []
        let candidates = 10_000..<max(10_001, min(range.first ?? 32_768, 30_000))
        for _ in 0..<200 {
            let candidate = Int.random(in: candidates)
            guard handed.withLock({ !$0.contains(candidate) }), let port = bound(candidate) else { continue }
            if handed.withLock({ $0.insert(port).inserted }) { return port }
        }
        return bound(0) ?? 0
    }

    private static let handed = Mutex<Set<Int>>([])

    /// Binds a socket on 127.0.0.1 to `port` (0: any) and closes it; the port it got, or
    /// nil when it was taken.
    private static func bound(_ port: Int) -> Int? {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        return ok ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
