import Foundation
import Logging

/// An async HTTP client over libcurl's multi interface.
///
/// A dedicated thread runs the transfers of each lane (see ``lanes``), however many are in
/// flight, and keeps connections alive between requests, so a validator can hold thousands
/// of verify requests open without a thread or a TLS handshake per request. Create one
/// client per process (or per stage) and share it.
///
/// ```swift
/// let client = try CurlHTTPClient(configuration: .init(maxConnectionsPerHost: 32))
/// let response = try await client.execute(HTTPRequest(url: "https://example.com/health"))
/// print(response.status, response.header("content-type") ?? "-")
/// await client.shutdown()
/// ```
///
/// Every outcome short of a response is an ``HTTPClientError`` whose
/// ``HTTPClientError/isRetryable`` says whether to try again. TLS certificates are always
/// verified. Redirects are not followed: a 3xx comes back as the response, so a verify
/// endpoint or webhook receiver cannot send a signed request somewhere else.
public final class CurlHTTPClient: Sendable {
    /// The limits and defaults this client was made with.
    public let configuration: Configuration
    /// One multi handle and its thread per ``streamsPerLane`` connections allowed to a
    /// host: libcurl carries at most 100 requests on one HTTP/2 connection, and opens a
    /// connection of its own for every request beyond while none has room (1,024 requests
    /// in flight opened 120-643 TLS connections, most carrying one request). Requests go
    /// to the lane with the fewest in flight, so over HTTP/2 each lane is one connection;
    /// over HTTP/1.1 the lanes together open as many as ``Configuration/maxConnectionsPerHost``.
    /// Internal rather than private so tests can watch the threads end.
    let lanes: [CurlMultiLoop]
    private let inFlight: LaneLoad

    /// Requests one lane holds before the next lane takes them: libcurl's streams per connection.
    static let streamsPerLane = 100

    /// Creates a client and starts its threads.
    /// - Parameters:
    ///   - configuration: Connection limits and defaults.
    ///   - logger: Where the client reports trouble with libcurl itself; per-request failures
    ///     are returned, not logged.
    /// - Throws: ``HTTPClientError/Code/invalidConfiguration`` if a limit is not positive, the
    ///   CA file cannot be read, or libcurl cannot be set up; better to stop at start than fail
    ///   every request later.
    public init(
        configuration: Configuration = .init(),
        logger: Logger = Logger(label: "HTTPClient")
    ) throws(HTTPClientError) {
        try Self.validate(configuration)
        self.configuration = configuration
        let count = (configuration.maxConnectionsPerHost + Self.streamsPerLane - 1) / Self.streamsPerLane
        var lane = configuration
        lane.maxConnectionsPerHost = (configuration.maxConnectionsPerHost + count - 1) / count
        lane.maxConnections = max(lane.maxConnectionsPerHost, (configuration.maxConnections + count - 1) / count)
        var lanes: [CurlMultiLoop] = []
        for _ in 0..<count { lanes.append(try CurlMultiLoop(configuration: lane, logger: logger)) }
        self.lanes = lanes
        self.inFlight = LaneLoad(lanes: count)
        for lane in lanes { lane.start() }
    }

    deinit {
        // Nobody can be awaiting `execute` (each call holds a reference), so there is nothing
        // to fail; the threads free libcurl's state and end on their own.
        for lane in lanes { lane.requestStop() }
    }

    /// Sends a request and returns the response, whatever its status.
    ///
    /// Cancelling the calling task abandons the transfer at once and throws
    /// ``HTTPClientError/Code/cancelled``.
    /// - Parameter request: The request to send.
    /// - Returns: The final response; 4xx and 5xx statuses are responses, not errors.
    /// - Throws: ``HTTPClientError`` if no response arrived: see its ``HTTPClientError/code``
    ///   and ``HTTPClientError/isRetryable``.
    public func execute(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let transfer = try CurlTransfer(request, configuration: self.configuration)
        let lane = inFlight.take()
        defer { inFlight.release(lane) }
        let loop = self.lanes[lane]
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                transfer.completion = { continuation.resume(returning: $0) }
                if !loop.submit(transfer) {
                    transfer.finish(.failure(HTTPClientError(.shutdown, message: "the HTTP client was shut down")))
                }
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        return try outcome.get()
    }

    /// Sends a request and calls `completion` with its outcome on the client's own thread, so
    /// that a caller sending many requests keeps no task per request (a load generator: a
    /// task's wake-up per answer was most of what it cost at a steady rate).
    ///
    /// `completion` is called once: with the response, whatever its status, or with the
    /// ``HTTPClientError`` ``execute(_:)`` would throw (at once, on this thread, for a request
    /// that cannot be sent). It runs where the client's transfers do, so it must be quick; it
    /// may send the next request.
    public func send(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    ) {
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(request, configuration: self.configuration)
        } catch {
            return completion(.failure(error))
        }
        let lane = inFlight.take()
        let inFlight = self.inFlight
        transfer.completion = { outcome in
            inFlight.release(lane)
            completion(outcome)
        }
        if !lanes[lane].submit(transfer) {
            transfer.finish(.failure(HTTPClientError(.shutdown, message: "the HTTP client was shut down")))
        }
    }

    /// Stops the client: fails queued and in-flight requests with
    /// ``HTTPClientError/Code/shutdown``, ends the thread and closes all connections.
    ///
    /// Returns once that is done. Later calls to ``execute(_:)`` fail with
    /// ``HTTPClientError/Code/shutdown``; calling `shutdown()` again returns at once.
    public func shutdown() async {
        for lane in lanes { await lane.stop() }
    }

    private static func validate(_ configuration: Configuration) throws(HTTPClientError) {
        func invalid(_ message: String) -> HTTPClientError {
            HTTPClientError(.invalidConfiguration, message: message)
        }
        guard configuration.maxConnections > 0 else { throw invalid("maxConnections must be positive") }
        guard configuration.maxConnectionsPerHost > 0 else { throw invalid("maxConnectionsPerHost must be positive") }
        guard configuration.timeout > .zero else { throw invalid("timeout must be positive") }
        guard configuration.connectTimeout > .zero else { throw invalid("connectTimeout must be positive") }
        guard configuration.maxResponseBodySize >= 0 else { throw invalid("maxResponseBodySize must not be negative") }
        if let caFile = configuration.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw invalid("caFile \(caFile) is not a readable file")
        }
    }
}

/// Requests in flight on each lane, for sending the next to the least busy.
private final class LaneLoad: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int]

    init(lanes: Int) { counts = Array(repeating: 0, count: lanes) }

    /// The least busy lane, counted as holding one more request.
    func take() -> Int {
        lock.withLock {
            var lane = 0
            for index in counts.indices.dropFirst() where counts[index] < counts[lane] { lane = index }
            counts[lane] += 1
            return lane
        }
    }

    func release(_ lane: Int) {
        lock.withLock { counts[lane] -= 1 }
    }
}
