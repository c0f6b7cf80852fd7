import Hummingbird
import Logging
import ServiceLifecycle

/// The small HTTP server of a worker without an API of its own (validator, fulfiller,
/// notifier): `/healthz`, `/readyz` and `/metrics`, on `IAP_ADMIN_PORT`.
///
/// ```swift
/// let admin = AdminServer(host: "127.0.0.1", port: 9101, endpoints: endpoints, logger: logger)
/// try await runServices([connection, admin, validator], ...)
/// ```
public struct AdminServer: Service {
    let host: String
    let port: Int
    let endpoints: HealthEndpoints
    let logger: Logger
    let onServerRunning: @Sendable (Int) async -> Void

    /// - Parameters:
    ///   - port: 0 picks a free port; `onServerRunning` learns which.
    public init(
        host: String, port: Int, endpoints: HealthEndpoints, logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.host = host
        self.port = port
        self.endpoints = endpoints
        self.logger = logger
        self.onServerRunning = onServerRunning
    }

    public func run() async throws {
        let router = Router()
        endpoints.register(on: router, healthz: true)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "iap-admin"),
            onServerRunning: { [logger, onServerRunning] channel in
                let bound = channel.localAddress?.port ?? 0
                logger.info(
                    "admin server listening", metadata: ["port": "\(bound)", "paths": "/healthz /readyz /metrics"])
                await onServerRunning(bound)
            },
            logger: logger)
        try await application.runService()
    }
}
