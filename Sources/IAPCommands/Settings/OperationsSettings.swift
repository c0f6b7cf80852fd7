import Broker
import Database
import DatabaseSQLite
import Logging
import Observability
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// Metrics, health and shutdown settings, the same in every process.
package struct OperationsSettings: Sendable {
    /// `IAP_SHUTDOWN_GRACE` (seconds, default 10): how long a worker may finish what it holds
    /// after SIGTERM or SIGINT before it requeues the rest and exits.
    package var shutdownGrace: Duration
    /// `IAP_ADMIN_PORT`: the admin server's port for workers; unset means none (several
    /// validators often share a host, and a fixed default would clash).
    package var adminPort: Int?
    /// `IAP_ADMIN_HOST` (default 127.0.0.1): where the admin server listens; 0.0.0.0 to
    /// let Prometheus or Kubernetes probes reach it from elsewhere.
    package var adminHost: String
    /// `IAP_METRICS_TOKEN`: when set, `/metrics` (intake and admin servers) asks for it as a
    /// bearer token; unset, `/metrics` is open like the probes.
    package var metricsToken: String?

    package init(environment env: EnvironmentReader) throws(SettingError) {
        let grace = try env.int("IAP_SHUTDOWN_GRACE", default: 10, range: 0...3600)
        shutdownGrace = .seconds(grace)
        adminPort =
            env.optional("IAP_ADMIN_PORT") == nil ? nil : try env.int("IAP_ADMIN_PORT", default: 0, range: 1...65535)
        adminHost = env.string("IAP_ADMIN_HOST", default: "127.0.0.1")
        metricsToken = env.optional("IAP_METRICS_TOKEN")
        if let metricsToken, metricsToken.count < 16 {
            throw SettingError(
                variable: "IAP_METRICS_TOKEN", problem: "needs at least 16 characters (it has \(metricsToken.count))")
        }
    }
}

extension PipelineSettings {
    /// The readiness checks of a process with `connection` and `database` (either optional).
    package func readinessChecks(connection: AMQPConnection?, database: (any SQLDatabase)?) -> [ReadinessCheck] {
        var checks: [ReadinessCheck] = []
        if let connection { checks.append(.broker(connection)) }
        if let database {
            let path = databasePath
            checks.append(
                ReadinessCheck(name: "database") {
                    // The SQLite file itself must still be there; a server just has to answer.
                    if let file = database as? SQLiteDatabase {
                        try await file.ping(path: path)
                    } else {
                        try await database.ping()
                    }
                })
        }
        return checks
    }

    /// What a worker runs beside its stage: the queue-depth poller (with a connection) and,
    /// when `--admin-port` or `IAP_ADMIN_PORT` is set, the admin server.
    package func operationsServices(
        role: PipelineMetrics.Role, adminPort: Int?, connection: AMQPConnection?, database: (any SQLDatabase)?,
        servesAdmin: Bool = true
    ) -> [any Service] {
        let registry = MetricsBootstrap.prometheus()
        PipelineMetrics.useApps(appDirectory.ids)
        PipelineMetrics.prepare([role])
        var services: [any Service] = []
        if let connection {
            services.append(
                QueueDepthPoller(connection: connection, topology: topology, logger: logger("\(role).queues")))
        }
        if servesAdmin, let port = adminPort ?? operations.adminPort {
            let endpoints = HealthEndpoints(
                registry: registry, checks: readinessChecks(connection: connection, database: database),
                metricsToken: operations.metricsToken)
            services.append(
                AdminServer(
                    host: operations.adminHost, port: port, endpoints: endpoints, logger: logger("\(role).admin")))
        }
        return services
    }
}
