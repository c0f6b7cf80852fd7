import AppStore
import ArgumentParser
import Foundation
import IAPCommands
import StubStore

extension Lab.Bench {
    /// Local receipt verification alone, on one core: parse, signature, payload, chain, bundle id.
    struct ReceiptVerifyBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "receipts",
            abstract: "Receipts per second that one core verifies locally (IAP_RECEIPT_VERIFICATION=local).",
            discussion: """
                Verifies the same receipt --count times in one task, so one core does the work: by default a
                PKCS #7 receipt the stub store mints (RSA 2048, SHA-256, like WWDR G5) with one purchase; with
                --file, that receipt (base64 or DER), checked against Apple Inc. Root CA at its creation date.
                Every verification must succeed; the CPU time of this process is reported beside the wall time.
                """)

        @Option(help: "Verifications to time.") var count = 5_000
        @Option(help: "A receipt to verify instead of a stub-minted one (base64 or DER).") var file: String?
        @Option(help: "Purchases in the stub-minted receipt.") var purchases = 1
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            guard count > 0, (1...1_000).contains(purchases) else {
                throw ValidationError("--count must be positive, --purchases 1...1000")
            }
        }

        struct Report: Codable {
            var receipt: String
            var bytes: Int
            var count: Int
            var seconds: Double
            var cpuSeconds: Double
            var perSecond: Double
            var perCoreSecond: Double
            var microsecondsPerReceipt: Double
        }

        func run() async throws {
            let (der, verifier, label) = try subject()
            // One untimed pass, so the first call's setup is not counted.
            _ = try await verifier.verify(der: der)
            let cpuBefore = (ProcessUsage(pid: getpid())?.cpuSeconds ?? 0)
            let start = ContinuousClock.now
            for _ in 0..<count {
                _ = try await verifier.verify(der: der)
            }
            let seconds = (ContinuousClock.now - start).seconds
            let cpu = (ProcessUsage(pid: getpid())?.cpuSeconds ?? 0) - cpuBefore
            let report = Report(
                receipt: label, bytes: der.count, count: count, seconds: seconds, cpuSeconds: cpu,
                perSecond: Double(count) / seconds, perCoreSecond: Double(count) / max(cpu, 1e-9),
                microsecondsPerReceipt: seconds * 1e6 / Double(count))
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(
                    "local receipt verification: \(label), \(der.count) bytes\n"
                        + "  \(count) receipts in \(String(format: "%.2f", seconds)) s: "
                        + "\(Int(report.perSecond)) receipts/s, \(Int(report.microsecondsPerReceipt)) µs each, "
                        + "\(Int(report.perCoreSecond)) receipts per CPU-second")
            }
        }

        private func subject() throws -> ([UInt8], AppReceiptVerifier, String) {
            if let file {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw ValidationError("cannot read \(file)")
                }
                let der = AppReceipt.bytes(ofFile: data)
                return (der, try AppReceiptVerifier(configuration: .init(bundleID: nil)), file)
            }
            let store = StubAppStore()
            let receipt = StubReceipt(
                bundleID: "com.example.game",
                transactions: (0..<purchases).map {
                    StubReceipt.Transaction(
                        transactionID: "\(2_000_000_000_000_000 + $0)", productID: "com.example.coins100")
                })
            let der = Array(Data(base64Encoded: store.issuePKCS7(receipt)) ?? Data())
            let verifier = try AppReceiptVerifier(
                configuration: .init(rootCertificates: [store.receiptAuthority.rootDER], bundleID: "com.example.game"))
            return (der, verifier, "stub-minted, \(purchases) purchase(s)")
        }
    }
}
