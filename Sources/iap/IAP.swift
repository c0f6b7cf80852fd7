import ArgumentParser
import Foundation
import Intake
import Logging
import TraceExport

/// `iap`: every stage of the receipt pipeline in one executable.
@main
struct IAP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap",
        abstract: "In-app purchase receipt pipeline: intake, validators, fulfiller, notifier.",
        discussion: """
            Settings come from IAP_* environment variables (see docs/configuration.md); a missing or
            malformed one stops the command at start with a message naming it.
            """,
        subcommands: [
            Up.self, IntakeCommand.self, ValidatorCommand.self, FulfillerCommand.self, NotifierCommand.self,
            StubStoreCommand.self, Dlq.self, Audit.self, Migrate.self, ReceiptCommand.self,
            Bench.self, Chaos.self, Reconcile.self, Webhooks.self, Account.self, Apps.self,
        ]
    )

    /// ArgumentParser's entry point, after making sure SIGTERM and SIGINT can arrive and
    /// that the process may open as many files as its hard limit allows.
    static func main() async {
        ShutdownSignals.unblock()
        OpenFileLimit.raiseToHard()
        do {
            if let problem = ArgumentCheck.problem(Array(CommandLine.arguments.dropFirst())) {
                throw ValidationError(problem)
            }
            var command = try parseAsRoot()
            // Before any stage is built: each reads once whether tracing is on.
            let exporter = try TraceExport.start(
                serviceName: "iap-\(type(of: command).configuration.commandName ?? "iap")",
                environment: ProcessInfo.processInfo.environment, logger: Logger(label: "iap.tracing"))
            do {
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch {
                await exporter?.finish()
                throw error
            }
            await exporter?.finish()
        } catch {
            exit(withError: error)
        }
    }
}
