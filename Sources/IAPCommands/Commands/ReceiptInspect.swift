import AppStore
import Apps
import ArgumentParser
import Foundation
import PipelineCore

extension IAP.ReceiptCommand {
    /// `iap receipt inspect FILE|-`: what a receipt says, and whether its signature, chain and
    /// bundle id hold, with the reason when not. Exits 0 when the receipt would be accepted, 1 when not.
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print what an app receipt says and whether its signature and chain hold.",
            discussion: """
                FILE (or - for standard input) holds the receipt as base64 (what apps send as receipt_data)
                or as DER. The chain is checked against Apple Inc. Root CA (or --root) at the receipt's
                creation date (or --at). Exits 0 when every check holds, 1 when one fails.
                """)

        @Argument(help: "The receipt file, or - for standard input.") var file: String
        @Option(help: "The app's bundle id; when given, a receipt of another app fails.") var bundleID: String?
        @Option(help: "Check against this app's apple.bundle_id in IAP_APPS, as --bundle-id does.") var app: String?
        @Option(help: "A root certificate (PEM or DER) to trust instead of Apple Inc. Root CA.") var root: String?
        @Option(help: "Check the chain at this moment (RFC 3339, or 'now') instead of the receipt's creation date.")
        var at: String?
        @Option(help: "The StoreKit testing certificate (PEM or DER) to trust for Xcode receipts.") var xcodeCert:
            String?
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let der = AppReceipt.bytes(ofFile: try read(file))
            var configuration = AppReceiptVerifier.Configuration(
                bundleID: try appBundleID() ?? bundleID, validationTime: try validationTime())
            if let root { configuration.rootCertificates = [try certificate(root)] }
            if let xcodeCert { configuration.xcodeCertificates = [try certificate(xcodeCert)] }
            let verifier: AppReceiptVerifier
            do {
                verifier = try AppReceiptVerifier(configuration: configuration)
            } catch {
                throw ValidationError("--root: \(error)")
            }
            let report = await verifier.inspect(der: der)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(ReceiptReport(report).text, terminator: "")
            }
            if !report.valid { throw ExitCode(1) }
        }

        private func validationTime() throws -> AppReceiptVerifier.ValidationTime {
            guard let at else { return .receiptCreationDate }
            if at == "now" { return .now }
            guard let date = ISO8601DateFormatter().date(from: at) else {
                throw ValidationError("--at must be an RFC 3339 date such as 2024-02-23T17:27:16Z, or 'now'")
            }
            return .fixed(date)
        }

        /// The bundle id of `--app`'s Apple app in the apps file; nil without `--app`.
        /// - Throws: `ValidationError` naming an app the file does not list, or one without Apple.
        private func appBundleID() throws -> String? {
            guard let app else { return nil }
            guard bundleID == nil else { throw ValidationError("give --app or --bundle-id, not both") }
            guard let path = EnvironmentReader().optional("IAP_APPS") else {
                throw ValidationError("--app: IAP_APPS is not set; name the bundle id with --bundle-id")
            }
            let file = try AppsFile.load(path: path, schema: .registered)
            guard let found = file.apps.first(where: { $0.id == app }) else {
                throw ValidationError(
                    "--app: no app '\(app.prefix(64))' in IAP_APPS (apps: \(file.apps.map(\.id).joined(separator: ", ")))"
                )
            }
            guard let bundle = found.members["apple.bundle_id"] else {
                throw ValidationError("--app: app \(app) has no apple.bundle_id")
            }
            return bundle
        }

        private func read(_ path: String) throws -> Data {
            if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read \(path)")
            }
            return data
        }

        private func certificate(_ path: String) throws -> [UInt8] {
            Array(VerifierSettings.der(fromPEMOrDER: try read(path)))
        }
    }
}
