import Foundation
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// `iap receipt inspect` as an operator runs it, and the receipt-verification settings.
@Suite struct ReceiptCommandTests {
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../AppStoreTests/AppReceipt/Vectors").standardizedFileURL

    static func vector(_ path: String) -> String { vectors.appendingPathComponent(path).path }

    @Test func appleReceipt_isShownAndValidAtItsCreationDate() async throws {
        let result = try await IAPProcess.run([
            "receipt", "inspect", Self.vector("TPInAppReceipt/receipt-sandbox-g5"), "--bundle-id",
            "dev.bonzer.weeka.app",
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ProductionSandbox"))
        #expect(result.output.contains("2000001092148094"))
        #expect(result.output.contains("chain         ok at 2025-12-26T18:39:47Z"))
        #expect(result.output.contains("verdict       valid"))
    }

    @Test func json_carriesTheFactsAndEachCheck() async throws {
        let result = try await IAPProcess.run([
            "receipt", "inspect", Self.vector("go-applereceipt/decode_test.go__oldReceipt.b64"), "--json",
        ])
        #expect(result.status == 0, "\(result.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let receipt = try #require(object["receipt"] as? [String: Any])
        #expect(receipt["bundle_id"] as? String == "com.devsisters.gb")
        #expect((receipt["in_app"] as? [[String: Any]])?.first?["transaction_id"] as? String == "310000144922729")
        #expect((object["signature"] as? [String: Any])?["ok"] as? Bool == true)
        #expect(object["valid"] as? Bool == true)
    }

    @Test(arguments: [
        (["--at", "now"], "receipt_chain_invalid"),
        (["--bundle-id", "com.example.game"], "bundle_mismatch"),
    ])
    func failingCheck_exitsOneWithItsReason(_ options: [String], _ reason: String) async throws {
        let result = try await IAPProcess.run(
            ["receipt", "inspect", Self.vector("TPInAppReceipt/receipt-production")] + options)
        #expect(result.status == 1)
        #expect(result.output.contains(reason))
        #expect(result.output.contains("NOT VALID"))
    }

    @Test func garbage_isReportedMalformed() async throws {
        let result = try await IAPProcess.run(["receipt", "inspect", Self.vector("AppReceiptValidator/not_a_receipt")])
        #expect(result.status == 1)
        #expect(result.output.contains("receipt_malformed"))
    }

    @Test func xcodeReceipt_needsItsCertificate() async throws {
        let file = Self.vector("TPInAppReceipt/receipt-xcode-with-purchases")
        let refused = try await IAPProcess.run(["receipt", "inspect", file])
        #expect(refused.status == 1)
        #expect(refused.output.contains("receipt_xcode_not_allowed"))
        let accepted = try await IAPProcess.run([
            "receipt", "inspect", file, "--xcode-cert", Self.vector("TPInAppReceipt/StoreKitTestCertificate.cer"),
        ])
        #expect(accepted.status == 0, "\(accepted.output)")
    }

    @Test func stubReceipt_isValidUnderTheStubsRoot() async throws {
        // Given a PKCS #7 receipt the stub store minted, and its root in a file
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = StubAppStore()
        let receipt = directory.file("receipt.b64")
        let root = directory.file("root.der")
        try Data(
            store.issuePKCS7(
                StubReceipt(
                    bundleID: "com.example.game", transactions: [.init(transactionID: "77", productID: "coins")])
            ).utf8
        ).write(to: URL(fileURLWithPath: receipt))
        try Data(store.receiptAuthority.rootDER).write(to: URL(fileURLWithPath: root))
        // Then it is valid with --root, and not under Apple's root
        let trusted = try await IAPProcess.run(["receipt", "inspect", receipt, "--root", root])
        #expect(trusted.status == 0, "\(trusted.output)")
        let untrusted = try await IAPProcess.run(["receipt", "inspect", receipt])
        #expect(untrusted.status == 1)
        #expect(untrusted.output.contains("receipt_chain_invalid"))
    }

    @Test(arguments: [
        ("IAP_RECEIPT_VERIFICATION", "remote"), ("IAP_RECEIPT_ROOT_CA", "/nonexistent/root.der"),
        ("IAP_VERIFY_CA_FILE", "/nonexistent/ca.pem"),
        ("IAP_VERIFY_CA_FILE", vector("AppReceiptValidator/not_a_receipt")),
        ("IAP_RECEIPT_ROOT_CA", vector("AppReceiptValidator/not_a_receipt")),
        ("IAP_RECEIPT_XCODE_CERT", vector("AppReceiptValidator/not_a_receipt")),
    ])
    func malformedReceiptSetting_stopsTheValidatorNamingIt(_ variable: String, _ value: String) async throws {
        let result = try await IAPProcess.run(
            ["validator"], environment: [variable: value, "IAP_AMQP_URL": "amqp://guest:guest@127.0.0.1:1/"])
        #expect(result.status != 0)
        #expect(result.output.contains(variable))
    }
}
