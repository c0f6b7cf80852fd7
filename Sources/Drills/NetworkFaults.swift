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
/// - ``Fault/silence(_:port:)``: on the server's side, inside its namespace, `iptables -A INPUT
///   -p tcp --dport PORT -j DROP` and `-A OUTPUT -p tcp --sport PORT -j DROP`: the service on
///   PORT goes silent for every client at once, its connections open included, while it keeps
///   running (the server's other ports, replication to it or a cluster's own links, stay up).
public final class NetworkFaults: Sendable {
    public enum Fault: Hashable, Sendable, CustomStringConvertible {
        case cut(NetworkNamespace)
        case drop(NetworkNamespace, address: String, port: Int)
        case silence(NetworkNamespace, port: Int)

        public var description: String {
            switch self {
            case .cut(let namespace): "\(namespace.netns) cut off (\(namespace.hostEnd) down)"
            case .drop(let namespace, let address, let port): "\(namespace.netns) dropping tcp to \(address):\(port)"
            case .silence(let namespace, let port): "\(namespace.netns) silent on tcp port \(port)"
            }
        }

        /// The iptables rules, without their `-A`/`-D`.
        var rules: [[String]] {
            switch self {
            case .cut: []
            case .drop(_, let address, let port):
                [["OUTPUT", "-d", address, "-p", "tcp", "--dport", "\(port)", "-j", "DROP"]]
            case .silence(_, let port):
                [
                    ["INPUT", "-p", "tcp", "--dport", "\(port)", "-j", "DROP"],
                    ["OUTPUT", "-p", "tcp", "--sport", "\(port)", "-j", "DROP"],
                ]
            }
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
        case .drop(let namespace, _, _), .silence(let namespace, _):
            let iptables = ["netns", "exec", namespace.netns, "iptables"]
            for rule in fault.rules {
                if applying {
                    try NetworkNamespace.ip(iptables + ["-A"] + rule)
                } else {
                    // Every copy of the rule, so that a retried apply leaves nothing behind.
                    while (try? NetworkNamespace.ip(iptables + ["-C"] + rule)) != nil {
                        try NetworkNamespace.ip(iptables + ["-D"] + rule)
                    }
                }
            }
        }
    }
}
