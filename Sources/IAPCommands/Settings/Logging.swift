import Logging
import PipelineCore
import ServiceLifecycle

/// Runs `services` in order until SIGTERM or SIGINT, then shuts them down in reverse:
/// HTTP servers stop taking requests first, the broker connections close last.
///
/// Each worker bounds its own shutdown by `IAP_SHUTDOWN_GRACE` (it requeues what it has
/// not finished by then); the group escalates to cancellation a little later, as a
/// backstop for a service that does not return.
package func runServices(_ services: [any Service], settings: PipelineSettings, label: String) async throws {
    var configuration = ServiceGroupConfiguration(
        services: services.map { .init(service: $0) },
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: settings.logger(label))
    configuration.maximumGracefulShutdownDuration = settings.operations.shutdownGrace + .seconds(3)
    try await ServiceGroup(configuration: configuration).run()
}

package enum LogSetup {
    /// Logs go to stderr, one line each (control characters escaped), with metadata
    /// (receipt ids among it).
    package static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return EscapingLogHandler(inner: handler)
        }
    }
}
