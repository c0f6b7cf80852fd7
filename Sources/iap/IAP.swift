import ArgumentParser

@main
struct IAP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "iap", abstract: "In-app purchase receipt pipeline.")
}
