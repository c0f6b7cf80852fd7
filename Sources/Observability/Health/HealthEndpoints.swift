import Foundation
import Hummingbird
import NIOCore
import PipelineCore
import Prometheus

/// `/metrics`, `/readyz` and (for admin servers) `/healthz`, added to a router.
///
/// - `/metrics`: the Prometheus text exposition of this process's registry.
/// - `/readyz`: 200 `ready` when every check passes, else 503 with one line per failing
///   check (`broker: not connected to ...`), so a load balancer or Kubernetes stops sending
///   work while the broker or the database is away.
/// - `/healthz`: 200 `ok` while the process answers at all (liveness).
///
/// With a metrics token (`IAP_METRICS_TOKEN`), `/metrics` answers only requests with
/// `Authorization: Bearer <token>` (401 otherwise); the probes stay open.
public struct HealthEndpoints: Sendable {
    let registry: PrometheusCollectorRegistry
    let checks: [ReadinessCheck]
    /// The metrics token's bytes, compared in constant time; nil: `/metrics` is open.
    let metricsToken: [UInt8]?

    public init(registry: PrometheusCollectorRegistry, checks: [ReadinessCheck], metricsToken: String? = nil) {
        self.registry = registry
        self.checks = checks
        self.metricsToken = metricsToken.map { Array($0.utf8) }
    }

    /// Adds the routes; `healthz` is false where the router has its own.
    public func register(on router: Router<some RequestContext>, healthz: Bool) {
        if healthz {
            router.get("healthz") { _, _ in "ok" }
        }
        router.get("metrics") { request, _ in
            guard mayReadMetrics(request) else {
                return Response(
                    status: .unauthorized, headers: [.contentType: "application/json", .wwwAuthenticate: "Bearer"],
                    body: .init(
                        byteBuffer: ByteBuffer(
                            string: #"{"error":{"code":"unauthorized","message":"missing or invalid metrics token"}}"#))
                )
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("readyz") { _, _ in await readinessResponse() }
    }

    private func mayReadMetrics(_ request: Request) -> Bool {
        guard let expected = metricsToken else { return true }
        guard let header = request.headers[.authorization], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { return false }
        return constantTimeEqual(expected, Array(header.dropFirst(7).utf8))
    }

    /// Runs every check concurrently.
    /// - Returns: whether all passed, and the text of the answer: `ready`, or one line per
    ///   failing check, sorted by name.
    func readiness() async -> (ready: Bool, text: String) {
        let problems = await withTaskGroup(of: (String, String?).self) { group in
            for check in checks {
                group.addTask { (check.name, await check.problem()) }
            }
            var problems: [(String, String)] = []
            for await (name, problem) in group {
                if let problem { problems.append((name, problem)) }
            }
            return problems.sorted { $0.0 < $1.0 }
        }
        return problems.isEmpty ? (true, "ready\n") : (false, problems.map { "\($0.0): \($0.1)\n" }.joined())
    }

    private func readinessResponse() async -> Response {
        let (ready, text) = await readiness()
        return Response(
            status: ready ? .ok : .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
