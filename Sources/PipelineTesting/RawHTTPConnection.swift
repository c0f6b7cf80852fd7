import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A plain TCP connection to a test server, for what an HTTP client library will not do:
/// send half a request, speak HTTP/1.0, oversize a header, or see when the server hangs up.
/// Nothing blocks a thread: waits poll the bytes the event loop has collected.
///
/// ```swift
/// let connection = try await RawHTTPConnection.connect(port: port)
/// try await connection.send("GET /healthz HTTP/1.0\r\n\r\n")
/// let response = try #require(await connection.response())
/// #expect(await connection.closedByServer(within: .seconds(5)))
/// ```
public final class RawHTTPConnection: Sendable {
    /// One response as read off the wire.
    public struct Response: Sendable {
        public var status: Int
        /// Header names lower-cased; the last of repeated names.
        public var headers: [String: String]
        public var body: String
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let state = Mutex<(bytes: [UInt8], closed: Bool)>(([], false))

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            state.withLock { $0.bytes += buffer.readableBytesView }
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.withLock { $0.closed = true }
        }
    }

    private let channel: any Channel
    private let collector: Collector

    private init(channel: any Channel, collector: Collector) {
        self.channel = channel
        self.collector = collector
    }

    /// Connects to `host:port`; `source` picks the client's own address (another loopback
    /// address, such as 127.0.0.2, is another client to a server that counts per address).
    public static func connect(host: String = "127.0.0.1", port: Int, from source: String? = nil) async throws
        -> RawHTTPConnection
    {
        let collector = Collector()
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap.connect(host: host, port: port).get()
        return RawHTTPConnection(channel: channel, collector: collector)
    }

    public func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Ends what this side sends (a TCP half-close) and keeps reading: the server sees the
    /// end of the request stream but may still answer.
    public func finishSending() async throws {
        try await channel.close(mode: .output)
    }

    /// The next whole response (by `Content-Length`, chunks, or the end of the connection),
    /// or nil if the server closed the connection first or `timeout` passed.
    public func response(timeout: Duration = .seconds(10)) async -> Response? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (parsed, closed) = collector.state.withLock { state in
                let parsed = Self.parse(state.bytes, closed: state.closed)
                if let parsed { state.bytes.removeFirst(parsed.consumed) }
                return (parsed?.response, state.closed)
            }
            if let parsed { return parsed }
            if closed { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Whether the server closes the connection within `limit`.
    public func closedByServer(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if collector.state.withLock({ $0.closed }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    public func close() async {
        try? await channel.close()
    }

    private static func parse(_ bytes: [UInt8], closed: Bool) -> (response: Response, consumed: Int)? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.firstRange(of: separator) else { return nil }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let bodyStart = end.upperBound
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard bytes.count - bodyStart >= length else { return nil }
            let body = String(decoding: bytes[bodyStart..<bodyStart + length], as: UTF8.self)
            return (Response(status: status, headers: headers, body: body), bodyStart + length)
        }
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var index = bodyStart
            var body: [UInt8] = []
            while true {
                guard let lineEnd = bytes[index...].firstRange(of: Array("\r\n".utf8)),
                    let size = Int(String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16)
                else { return nil }
                let chunkStart = lineEnd.upperBound
                guard bytes.count >= chunkStart + size + 2 else { return nil }
                if size == 0 {
                    return (
                        Response(status: status, headers: headers, body: String(decoding: body, as: UTF8.self)),
                        chunkStart + 2
                    )
                }
                body += bytes[chunkStart..<chunkStart + size]
                index = chunkStart + size + 2
            }
        }
        guard closed else { return nil }
        let body = String(decoding: bytes[bodyStart...], as: UTF8.self)
        return (Response(status: status, headers: headers, body: body), bytes.count)
    }
}
