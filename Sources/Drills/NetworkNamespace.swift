import Foundation

/// A test host on this machine: network namespace `iap-<name>` with an address of its own on
/// bridge `iap-br0`, laid out exactly as `scripts/netns.sh up NAME ADDRESS` lays it out (so
/// that `scripts/netns.sh cut/heal/down NAME` work on it too). Built here rather than by the
/// script so that `iap-lab chaos --cluster` runs from the binary alone. Needs root.
public struct NetworkNamespace: Hashable, Sendable, CustomStringConvertible {
    public static let bridge = "iap-br0"
    /// The host's own address on the bridge: what a namespace reaches the host's services at.
    public static let hostAddress = "10.77.0.1"

    /// Without the `iap-` prefix, at most 12 characters (the veth names derive from it).
    public let name: String
    public let address: String

    public init(name: String, address: String) {
        precondition(name.count <= 12, "a namespace name longer than 12 characters would clash in its veth names")
        self.name = name
        self.address = address
    }

    /// The namespace as `ip netns` knows it.
    public var netns: String { "iap-\(name)" }
    /// The veth end on the bridge: down, and nothing reaches the namespace or leaves it.
    public var hostEnd: String { "vh-\(name)" }
    var innerEnd: String { "vn-\(name)" }
    public var description: String { "\(netns) (\(address))" }

    /// Creates the namespace, its veth pair and the bridge if missing; a namespace of the same
    /// name a failed run left behind is removed first.
    public func up() async throws {
        try await offloaded { try upBlocking() }
    }

    /// Every process in it SIGKILLed, its link and the namespace gone (with its iptables rules).
    /// Safe to repeat; the bridge stays, since other test hosts share it.
    public func down() async {
        _ = try? await offloaded { downBlocking() }
    }

    /// `executable arguments` run inside the namespace. `ip netns exec` execs the program (no
    /// fork), so the process started is the program itself: a SIGKILL reaches it.
    public func wrap(_ executable: URL, _ arguments: [String]) -> (URL, [String]) {
        (URL(fileURLWithPath: Self.ipPath), ["netns", "exec", netns, executable.path] + arguments)
    }

    /// Runs `command arguments` inside the namespace and waits; throws on a non-zero exit.
    @discardableResult
    public func run(_ command: String, _ arguments: [String]) async throws -> String {
        try await offloaded { try Self.ip(["netns", "exec", netns, command] + arguments) }
    }

    func upBlocking() throws {
        downBlocking()
        if (try? Self.ip(["link", "show", Self.bridge])) == nil {
            try Self.ip(["link", "add", Self.bridge, "type", "bridge"])
            try Self.ip(["addr", "add", "\(Self.hostAddress)/24", "dev", Self.bridge])
            try Self.ip(["link", "set", Self.bridge, "up"])
        }
        try Self.ip(["netns", "add", netns])
        try Self.ip(["link", "add", hostEnd, "type", "veth", "peer", "name", innerEnd])
        try Self.ip(["link", "set", innerEnd, "netns", netns])
        try Self.ip(["link", "set", hostEnd, "master", Self.bridge])
        try Self.ip(["link", "set", hostEnd, "up"])
        let inside = ["netns", "exec", netns, Self.ipPath]
        try Self.ip(inside + ["link", "set", "lo", "up"])
        try Self.ip(inside + ["addr", "add", "\(address)/24", "dev", innerEnd])
        try Self.ip(inside + ["link", "set", innerEnd, "up"])
        try Self.ip(inside + ["route", "add", "default", "via", Self.hostAddress])
    }

    /// For cleanups that cannot await (a test's `defer`).
    public func downBlocking() {
        if let pids = try? Self.ip(["netns", "pids", netns]) {
            for pid in pids.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
        }
        _ = try? Self.ip(["link", "del", hostEnd])
        _ = try? Self.ip(["netns", "del", netns])
    }

    /// Removes every namespace named `iap-<prefix>…` and its link, as ``downBlocking()`` does:
    /// what a run that was killed left behind.
    public static func removeAll(prefix: String) {
        let listing = (try? ip(["netns", "list"])) ?? ""
        for line in listing.split(separator: "\n") {
            let netns = line.split(separator: " ").first.map(String.init) ?? ""
            guard netns.hasPrefix("iap-\(prefix)") else { continue }
            NetworkNamespace(name: String(netns.dropFirst(4)), address: "").downBlocking()
        }
    }

    static let ipPath =
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        } ?? "/usr/sbin/ip"

    /// `ip arguments`, blocking; its output, or a throw naming the command and what it said.
    @discardableResult
    static func ip(_ arguments: [String]) throws -> String {
        let (termination, output) = try SpawnedProcess.run(ipPath, arguments)
        guard termination == .exited(0) else {
            throw NetworkFaultError(
                "ip \(arguments.joined(separator: " ")) ended \(termination): \(output.suffix(300))")
        }
        return output
    }
}

public struct NetworkFaultError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
