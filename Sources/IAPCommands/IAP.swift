import ArgumentParser
import Foundation
import Intake
import Logging
import TraceExport

/// `iap`: every stage of the receipt pipeline in one executable, and the operators' commands.
/// The lab (benchmarks, drills, the stub stores) is another executable, `iap-lab`.
package struct IAP: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "iap",
        abstract: "In-app purchase receipt pipeline: intake, validators, fulfiller, notifier.",
        discussion: """
            Settings come from IAP_* environment variables (see docs/configuration.md); a missing or
            malformed one stops the command at start with a message naming it.
            """,
        subcommands: [
            Up.self, IntakeCommand.self, ValidatorCommand.self, FulfillerCommand.self, NotifierCommand.self,
            Dlq.self, Audit.self, Migrate.self, ReceiptCommand.self, Reconcile.self, Webhooks.self, Account.self,
            Apps.self, Export.self, Revenue.self,
        ]
    )

    package init() {}
}

/// How each executable of the package starts: SIGTERM and SIGINT made able to arrive, the
/// file limit raised to the hard one, the arguments checked, then the command parsed and run,
/// with traces exported when an endpoint is set.
package enum CommandMain {
    /// Runs the command line under `root`; exits with its status.
    package static func run(_ root: any ParsableCommand.Type) async {
        ShutdownSignals.unblock()
        OpenFileLimit.raiseToHard()
        do {
            if let problem = ArgumentCheck.problem(Array(CommandLine.arguments.dropFirst())) {
                throw ValidationError(problem)
            }
            var command = try root.parseAsRoot()
            // Before any stage is built: each reads once whether tracing is on.
            let name = root.configuration.commandName ?? "iap"
            let exporter = try TraceExport.start(
                serviceName: "\(name)-\(type(of: command).configuration.commandName ?? name)",
                environment: ProcessInfo.processInfo.environment, logger: Logger(label: "\(name).tracing"))
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
            root.exit(withError: error)
        }
    }
}
