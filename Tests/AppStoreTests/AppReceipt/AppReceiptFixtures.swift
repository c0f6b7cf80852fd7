import AppStore
import Foundation
import StubStore
import Testing

/// The receipt vectors beside this file, their manifest, and authorities for the local-receipt tests.
enum AppReceiptFixtures {
    /// `Vectors/`, found from this file's path so tests run from any directory.
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    /// A vector file's bytes.
    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: vectors.appendingPathComponent(path)))
    }

    /// A receipt's DER, however its source stored it: raw DER, base64 text, PEM, or a key of a
    /// JSON file (`fixtures.json#validReceipt2`).
    static func receipt(_ file: String) throws -> [UInt8] {
        let parts = file.split(separator: "#", maxSplits: 1).map(String.init)
        var raw = try bytes(parts[0])
        if parts.count == 2 {
            let object = try JSONSerialization.jsonObject(with: Data(raw)) as? [String: Any]
            raw = Array(((object?[parts[1]] as? String) ?? "").utf8)
        }
        if raw.first == 0x30 { return raw }
        let text = String(decoding: raw, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("-----") }
            .joined()
        // A truncated vector may end mid-quantum: keep the whole quanta. Text that is not
        // base64 at all (garbage vectors) is returned as it is.
        let whole = text.filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: String(whole.prefix(whole.count / 4 * 4))) else { return raw }
        return Array(data)
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: The manifest

    struct Manifest: Decodable {
        var vectors: [Vector]
    }

    struct Vector: Decodable, CustomTestStringConvertible {
        var file: String
        var decoded: Decoded?
        var testDescription: String { file }
    }

    struct Decoded: Decodable {
        var environment_field0: String?
        var digest_algorithm: String?
        var bundle_id: String?
        var app_version: String?
        var receipt_creation_date: String?
        var in_app_count: Int?
        var verify_with_apple_inc_root_at_creation: String?
        var in_app: [InApp]?
    }

    struct InApp: Decodable {
        var quantity: Int?
        var product_id: String?
        var transaction_id: String?
        var purchase_date: String?
        var original_transaction_id: String?
        var original_purchase_date: String?
        var expires_date: String?
        var web_order_line_item_id: Int64?
    }

    static let manifest: Manifest = {
        // A missing or broken manifest fails every vector test with this message.
        guard let data = try? Data(contentsOf: vectors.appendingPathComponent("manifest.json")),
            let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
        else { return Manifest(vectors: []) }
        return manifest
    }()

    /// Every vector Apple signed that `openssl cms -verify` accepted at its creation date.
    static let appleSigned: [Vector] = manifest.vectors.filter {
        $0.decoded?.verify_with_apple_inc_root_at_creation == "ok"
    }

    /// The vectors Xcode signed (self-signed `StoreKit` certificate).
    static let xcode: [Vector] = manifest.vectors.filter { $0.decoded?.environment_field0 == "Xcode" }

    /// A manifest date (`2024-02-23T17:27:16Z`, `2020-07-22T18:33:15+0100`) as a `Date`.
    static func date(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mm:ssXX"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    // MARK: Verifiers and the stub's authority

    /// A verifier trusting Apple Inc. Root CA, with the chain checked at each receipt's creation date.
    static func appleVerifier(
        bundleID: String?, validationTime: AppReceiptVerifier.ValidationTime = .receiptCreationDate,
        roots: [[UInt8]] = [AppReceiptVerifier.appleIncRootCA], xcode: [[UInt8]] = []
    ) throws -> AppReceiptVerifier {
        try AppReceiptVerifier(
            configuration: .init(
                rootCertificates: roots, bundleID: bundleID, validationTime: validationTime, xcodeCertificates: xcode))
    }

    static let notBefore = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01
    static let notAfter = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01
    static let created = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let bundleID = "com.example.game"

    /// RSA keys take a moment: one authority for the suite's default case.
    static let authority: ReceiptCertificateAuthority? = try? ReceiptCertificateAuthority(
        notBefore: notBefore, notAfter: notAfter)

    static func stubAuthority() throws -> ReceiptCertificateAuthority {
        guard let authority else { throw FixtureError("the stub's receipt authority could not be made") }
        return authority
    }

    static func receipt(
        bundleID: String = bundleID, environment: AppReceiptEnvironment = .production, created: Date = created
    ) -> AppReceipt {
        AppReceipt(
            environment: environment, bundleID: bundleID, appVersion: "7", originalAppVersion: "1.0",
            creationDate: created,
            inAppPurchases: [
                .init(
                    productID: "com.example.coins100", quantity: 2, transactionID: "2000000000000001",
                    originalTransactionID: "2000000000000001", purchaseDate: created.addingTimeInterval(-60),
                    webOrderLineItemID: 0),
                .init(
                    productID: "com.example.vip.monthly", quantity: 1, transactionID: "2000000000000003",
                    originalTransactionID: "2000000000000002", purchaseDate: created.addingTimeInterval(-30),
                    originalPurchaseDate: created.addingTimeInterval(-86_400 * 31),
                    expiresDate: created.addingTimeInterval(86_400 * 30), webOrderLineItemID: 2_000_000_000_000_009),
            ])
    }

    static func stubVerifier(
        trusting authority: ReceiptCertificateAuthority, bundleID: String? = bundleID,
        validationTime: AppReceiptVerifier.ValidationTime = .receiptCreationDate
    ) throws -> AppReceiptVerifier {
        try AppReceiptVerifier(
            configuration: .init(
                rootCertificates: [authority.rootDER], bundleID: bundleID, validationTime: validationTime))
    }
}
