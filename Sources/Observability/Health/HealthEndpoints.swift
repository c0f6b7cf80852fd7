import Foundation
import Hummingbird
import NIOCore
import Prometheus

/// `/metrics`, `/readyz` and (for admin servers) `/healthz`, added to a router.
///
/// - `/metrics`: the Prometheus text exposition of this process's registry.
/// - `/readyz`: 200 `ready` when every check passes, else 503 with one line per failing
///   check (`broker: not connected to ...`), so a load balancer or Kubernetes stops sending
///   work while the broker or the database is away.
/// - `/healthz`: 200 `ok` while the process answers at all (liveness).
public struct HealthEndpoints: Sendable {
    let registry: PrometheusCollectorRegistry
    let checks: [ReadinessCheck]

    public init(registry: PrometheusCollectorRegistry, checks: [ReadinessCheck]) {
        self.registry = registry
        self.checks = checks
    }

    /// Adds the routes; `healthz` is false where the router has its own.
    public func register(on router: Router<some RequestContext>, healthz: Bool) {
        if healthz {
            router.get("healthz") { _, _ in "ok" }
        }
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("readyz") { _, _ in await readinessResponse() }
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
