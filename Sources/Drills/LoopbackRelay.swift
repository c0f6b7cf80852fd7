import Foundation
import Synchronization

/// A TCP relay from an address other hosts can reach (the bridge's, ``NetworkNamespace/hostAddress``)
/// to a service that listens on this host's loopback only: the shared broker and PostgreSQL of
/// a test machine. A stage in a namespace of its own has a loopback of its own, so it reaches
/// them through this. The service sees a loopback client, as it would without namespaces
/// (RabbitMQ lets `guest` in only from loopback).
///
/// Bytes are copied as they come, in both directions, a thread each; when either side closes,
/// both are closed. A partition of the client's namespace stalls its connection here as it
/// would stall a direct one; the service ends it by its own timeouts (a broker's heartbeat).
///
/// ``silence()`` makes the service go silent without a namespace: what either side sends is
/// read and dropped, nothing is closed, as with a peer whose packets are lost (at the
/// application's level: this host's kernel still acknowledges them, so only the protocol's
/// own timeouts, a heartbeat or a statement's deadline, can notice). ``resume()`` relays new
/// connections again; the ones that lost bytes stay silent, as their streams are broken.
public final class LoopbackRelay: Sendable {
    /// Where clients connect: `address:port`.
    public let address: String
    public let port: Int
    /// The loopback port relayed to.
    public let target: Int
    private let listener: Int32
    private let closed = Atomic<Bool>(false)
    private let state = SilenceState()

    /// Listens on `address` (any free port) and relays each connection to 127.0.0.1:`target`.
    public init(address: String = NetworkNamespace.hostAddress, target: Int) throws {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw NetworkFaultError("relay: socket() failed (errno \(errno))") }
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound = Self.socketAddress(address, port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && listen(socket, 128) == 0
                    && getsockname(socket, pointer, &length) == 0
            }
        }
        guard ok else {
            let error = errno
            Foundation.close(socket)
            throw NetworkFaultError("relay: cannot listen on \(address) (errno \(error))")
        }
        self.address = address
        self.port = Int(UInt16(bigEndian: bound.sin_port))
        self.target = target
        self.listener = socket
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "relay \(address):\(port) -> 127.0.0.1:\(target)"
        thread.start()
    }

    /// Every connection open, and every one accepted until ``resume()``, goes silent.
    public func silence() {
        state.silence()
    }

    /// New connections are relayed again.
    public func resume() {
        state.resume()
    }

    /// Stops accepting; the connections open end with their clients.
    public func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        Foundation.close(listener)
    }

    private func acceptLoop() {
        while !closed.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let upstream = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var service = Self.socketAddress("127.0.0.1", port: target)
            let connected = withUnsafePointer(to: &service) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                // Refused as the service itself would refuse it.
                Foundation.close(upstream)
                Foundation.close(client)
                continue
            }
            let pair = Pair(client, upstream, state: state)
            Thread { pair.copy(from: client, to: upstream) }.start()
            Thread { pair.copy(from: upstream, to: client) }.start()
        }
    }

    private static func socketAddress(_ address: String, port: Int) -> sockaddr_in {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_addr.s_addr = inet_addr(address)
        socketAddress.sin_port = UInt16(port).bigEndian
        return socketAddress
    }

    /// Whether connections are relayed: each silence is a new round, and a connection relays
    /// only while no silence came since it was accepted.
    private final class SilenceState: Sendable {
        let silent = Atomic<Bool>(false)
        let round = Atomic<Int>(0)

        func silence() {
            round.add(1, ordering: .sequentiallyConsistent)
            silent.store(true, ordering: .sequentiallyConsistent)
        }

        func resume() { silent.store(false, ordering: .sequentiallyConsistent) }

        /// The round a connection accepted now relays in; nil: silent from the start.
        var roundForNew: Int? {
            silent.load(ordering: .sequentiallyConsistent) ? nil : round.load(ordering: .sequentiallyConsistent)
        }

        func relays(_ round: Int?) -> Bool {
            round == self.round.load(ordering: .sequentiallyConsistent)
        }
    }

    /// One relayed connection: its two sockets, closed once, by whichever direction ends first.
    private final class Pair: Sendable {
        let sockets: (Int32, Int32)
        let ended = Atomic<Int>(0)
        let state: SilenceState
        let round: Int?

        init(_ first: Int32, _ second: Int32, state: SilenceState) {
            sockets = (first, second)
            self.state = state
            round = state.roundForNew
        }

        func copy(from source: Int32, to destination: Int32) {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            loop: while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                // Read and dropped: the sender's side sees a peer that says nothing.
                guard state.relays(round) else { continue }
                var sent = 0
                while sent < count {
                    let written = buffer.withUnsafeBytes {
                        send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                    }
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { break loop }
                    sent += written
                }
            }
            // The first direction to end wakes the other; the second closes both.
            shutdown(sockets.0, Int32(SHUT_RDWR))
            shutdown(sockets.1, Int32(SHUT_RDWR))
            if ended.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
                Foundation.close(sockets.0)
                Foundation.close(sockets.1)
            }
        }
    }
}
