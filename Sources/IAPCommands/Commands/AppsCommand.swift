import Apps
import ArgumentParser
import Foundation
import PipelineCore

extension IAP {
    /// `iap apps check`: reads an apps file as every process will, and shows what each app sets up.
    struct Apps: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a file of apps (IAP_APPS) and show what each app sets up.",
            subcommands: [Check.self])

        struct Check: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Read the apps file and each app's settings; exit 1 naming the app and member at fault.",
                discussion: """
                    Each app is read by the parsers of the single-app settings (IAP_BUNDLE_ID, \
                    IAP_GOOGLE_PACKAGE_NAMES, IAP_CATALOG, ...), over the process's other variables. \
                    Ids, bundle ids, package names, Huawei client ids and API tokens must each name one \
                    app. No secret is printed, in the summary or in an error.
                    """)

            @Option(help: "The apps file (YAML or JSON); IAP_APPS by default.") var file: String?

            func run() async throws {
                let environment = EnvironmentReader()
                guard let path = file ?? environment.optional("IAP_APPS") else {
                    throw SettingError(variable: "IAP_APPS", problem: "is not set: name the apps file, or use --file")
                }
                let summaries = try AppsFile.load(path: path, schema: .registered).check(over: environment)
                print("\(summaries.count) app\(summaries.count == 1 ? "" : "s") in \(path)")
                for app in summaries {
                    print(
                        "  \(app.id): stores \(app.stores.isEmpty ? "none" : app.stores.joined(separator: ", "))"
                            + (app.identities.isEmpty ? "" : " (\(app.identities.joined(separator: "; ")))")
                            + ", catalog \(app.products.map { "\($0) products" } ?? "built-in sample")"
                            + ", \(app.tokens) API token\(app.tokens == 1 ? "" : "s")"
                            + ", webhooks \(app.webhook.map { "to \($0)" } ?? "off")")
                }
            }
        }
    }
}
