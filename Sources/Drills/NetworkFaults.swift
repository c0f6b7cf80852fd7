import Foundation
import Synchronization

/// Network partitions of test hosts (``NetworkNamespace``), each undone by ``heal(_:)`` and
/// all of them by ``healAll()``, which a failed run calls so that no partition outlives it.
///
/// - ``Fault/cut(_:)``: the namespace's link down on the bridge. Nothing reaches it and it
///   reaches nothing: packets are lost, not refused, as when a cable or a switch goes.
/// - ``Fault/drop(_:address:port:)``: inside the namespace, `iptables -A OUTPUT -d ADDRESS -p tcp
///   --dport PORT -j DROP`: that one service unreachable, everything else as before (an open
///   connection to it stalls too, since every packet to it is dropped).
public final class NetworkFaults: Sendable {
    public enum Fault: Hashable, Sendable, CustomStringConvertible {
        case cut(NetworkNamespace)
        case drop(NetworkNamespace, address: String, port: Int)

        public var description: String {
            switch self {
            case .cut(let namespace): "\(namespace.netns) cut off (\(namespace.hostEnd) down)"
            case .drop(let namespace, let address, let port): "\(namespace.netns) dropping tcp to \(address):\(port)"
            }
        }

        /// The iptables rule, without its `-A`/`-D`.
        var rule: [String] {
            guard case .drop(_, let address, let port) = self else { return [] }
            return ["OUTPUT", "-d", address, "-p", "tcp", "--dport", "\(port)", "-j", "DROP"]
        }
    }

    private let active = Mutex<[Fault]>([])

    public init() {}

    /// The partitions in force now.
    public var inForce: [Fault] { active.withLock { $0 } }

    public func apply(_ fault: Fault) async throws {
        // Noted before it is applied: a fault half applied is healed all the same.
        active.withLock { $0.append(fault) }
        try await offloaded { try Self.change(fault, applying: true) }
    }

    public func heal(_ fault: Fault) async throws {
        try await offloaded { try Self.change(fault, applying: false) }
        active.withLock { $0.removeAll { $0 == fault } }
    }

    /// Heals every partition in force; what could not be healed, one line each.
    @discardableResult
    public func healAll() async -> [String] {
        var failures: [String] = []
        for fault in inForce {
            do { try await heal(fault) } catch { failures.append("\(fault): \(error)") }
        }
        return failures
    }

    /// For cleanups that cannot await (a test's `defer`).
    public func healAllBlocking() {
        for fault in inForce { try? Self.change(fault, applying: false) }
        active.withLock { $0.removeAll() }
    }

    private static func change(_ fault: Fault, applying: Bool) throws {
        switch fault {
        case .cut(let namespace):
            try NetworkNamespace.ip(["link", "set", namespace.hostEnd, applying ? "down" : "up"])
        case .drop(let namespace, _, _):
            let iptables = ["netns", "exec", namespace.netns, "iptables"]
            if applying {
                try NetworkNamespace.ip(iptables + ["-A"] + fault.rule)
            } else {
                // Every copy of the rule, so that a retried apply leaves nothing behind.
                while (try? NetworkNamespace.ip(iptables + ["-C"] + fault.rule)) != nil {
                    try NetworkNamespace.ip(iptables + ["-D"] + fault.rule)
                }
            }
        }
    }
}
