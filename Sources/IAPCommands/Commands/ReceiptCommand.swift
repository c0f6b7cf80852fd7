import ArgumentParser

extension IAP {
    /// `iap receipt`: tools for legacy app receipts.
    struct ReceiptCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "receipt",
            abstract: "Look inside legacy app receipts (PKCS #7) and check them locally.",
            subcommands: [Inspect.self])
    }
}
