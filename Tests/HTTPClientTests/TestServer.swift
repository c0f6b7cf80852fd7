import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PipelineTesting

/// A real Hummingbird server on a loopback socket, for the client to talk to.
///
/// This file imports Hummingbird and the tests import HTTPClient, so that neither has to
/// spell out which `HTTPRequest` it means.
///
/// Routes:
/// - `GET /hello` → `200 hello`; `HEAD /hello` → `200`, no body
/// - `POST /content-type` → the request's `Content-Type` as the body
/// - `POST|PUT|PATCH|DELETE /echo` → the body back, with `X-Method` and `X-Body-Length`
/// - `GET /sleep?ms=N` → `200 late` after N ms (counted in ``sleepers`` while it waits)
/// - `GET /headers` → the `X-Request-Id` it got as the body, and `X-Reply-Token: token-42`
/// - `GET /status/:code` → that status, with body `status N`
/// - `GET /peer` → the client's port as seen by the server, which names the connection
struct TestServer: Sendable {
    /// The port the server bound on 127.0.0.1.
    let port: Int
    /// Requests inside `/sleep` right now.
    let sleepers: Counter

    /// The URL of `path` on this server.
    func url(_ path: String) -> String {
        "http://127.0.0.1:\(self.port)\(path)"
    }

    /// Runs `body` with a fresh server, then stops the server.
    static func run<T: Sendable>(_ body: (TestServer) async throws -> T) async throws -> T {
        let sleepers = Counter()
        let router = Router(context: PeerContext.self)
        router.get("/hello") { _, _ in "hello" }
        router.head("/hello") { _, _ in
            Response(status: .ok, headers: [.contentLength: "5"])
        }
        router.post("/content-type") { request, _ in
            request.headers[.contentType] ?? "(none)"
        }
        for method in [HTTPTypes.HTTPRequest.Method.post, .put, .patch, .delete] {
            router.on("/echo", method: method) { request, _ -> Response in
                var request = request
                let bytes = try await request.collectBody(upTo: 1 << 20)
                var headers = HTTPFields()
                headers[.contentType] = "application/octet-stream"
                headers[.xMethod] = request.method.rawValue
                headers[.xBodyLength] = String(bytes.readableBytes)
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: bytes))
            }
        }
        router.get("/sleep") { request, _ -> String in
            let milliseconds = request.uri.queryParameters.get("ms", as: Int.self) ?? 1000
            sleepers.add(1)
            defer { sleepers.add(-1) }
            try await Task.sleep(for: .milliseconds(milliseconds))
            return "late"
        }
        router.get("/headers") { request, _ -> Response in
            var headers = HTTPFields()
            headers[.xReplyToken] = "token-42"
            let received = request.headers[.xRequestID] ?? "(none)"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: received)))
        }
        router.get("/status/:code") { _, context -> Response in
            let code = try context.parameters.require("code", as: Int.self)
            return Response(
                status: .init(code: code),
                body: .init(byteBuffer: ByteBuffer(string: "status \(code)"))
            )
        }
        router.get("/peer") { _, context in
            context.remotePort.map(String.init) ?? "unknown"
        }

        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "TestServer")
        // Cancelling the server at the end of a test logs a CancellationError at error level.
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        let server = RunningService(app)
        do {
            guard let port = await ports.first(where: { _ in true }), port > 0 else {
                throw TestServerError.didNotStart
            }
            let value = try await body(TestServer(port: port, sleepers: sleepers))
            await server.stop()
            return value
        } catch {
            await server.stop()
            throw error
        }
    }
}

enum TestServerError: Error {
    case didNotStart
}

/// A request context that remembers the client's port, so a test can tell connections apart.
struct PeerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remotePort: Int?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remotePort = source.channel.remoteAddress?.port
    }
}

/// A thread-safe counter shared between server handlers and the test.
final class Counter: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var value = 0

    func add(_ delta: Int) {
        self.lock.withLock { self.value += delta }
    }

    var current: Int {
        self.lock.withLock { self.value }
    }
}

extension HTTPField.Name {
    static let xMethod = Self("X-Method")!
    static let xBodyLength = Self("X-Body-Length")!
    static let xReplyToken = Self("X-Reply-Token")!
    static let xRequestID = Self("X-Request-Id")!
}
