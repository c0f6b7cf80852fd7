import Logging
import ServiceLifecycle

/// Runs `services` in order until SIGTERM or SIGINT, then shuts them down in reverse:
/// HTTP servers stop taking requests first, the broker connections close last.
func runServices(_ services: [any Service], settings: PipelineSettings, label: String) async throws {
    let group = ServiceGroup(
        configuration: .init(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: settings.logger(label)))
    try await group.run()
}

enum LogSetup {
    /// Logs go to stderr, one line each, with metadata (receipt ids among it).
    static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
