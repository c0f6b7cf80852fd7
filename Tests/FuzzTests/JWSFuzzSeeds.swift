import AppStore
import Foundation
import PipelineTesting
import StubStore

/// Valid JWS to mutate: a transaction, renewal info and a notification, signed by a test
/// authority the verifiers trust, as the stub store signs them.
struct JWSFuzzSeeds: Sendable {
    static let notBefore = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01
    static let notAfter = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01
    static let signedDate = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let bundleID = "com.example.game"
    static let appAppleID: Int64 = 9_876_543_210

    let authority: TestCertificateAuthority
    let transaction: JWSTransactionDecodedPayload
    let tokens: [String]
    let sandbox: SignedDataVerifier
    let production: SignedDataVerifier

    init() throws {
        authority = try TestCertificateAuthority(notBefore: Self.notBefore, notAfter: Self.notAfter)
        transaction = JWSTransactionDecodedPayload(
            originalTransactionId: "2000000100", transactionId: "2000000123", webOrderLineItemId: "2000000009",
            bundleId: Self.bundleID, productId: "com.example.coins100",
            purchaseDate: Date(timeIntervalSince1970: 1_767_225_000),
            originalPurchaseDate: Date(timeIntervalSince1970: 1_767_224_000), quantity: 3, type: .consumable,
            appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", inAppOwnershipType: .purchased,
            signedDate: Self.signedDate, environment: .sandbox, storefront: "USA", storefrontId: "143441",
            transactionReason: .purchase, currency: "USD", price: 990, appTransactionId: "704289572311531233")
        let renewal = JWSRenewalInfoDecodedPayload(
            originalTransactionId: "2000000100", autoRenewProductId: "com.example.vip.monthly",
            productId: "com.example.vip.monthly", autoRenewStatus: .on, signedDate: Self.signedDate,
            environment: .sandbox)
        let signer = authority.signer
        let notification = ResponseBodyV2DecodedPayload(
            notificationType: .refund, notificationUUID: "e1c5e6a5-8d3c-4e47-9f3f-0f8e4c1b2a10",
            data: .init(
                environment: .sandbox, appAppleId: Self.appAppleID, bundleId: Self.bundleID, bundleVersion: "42",
                signedTransactionInfo: signer.signTransaction(transaction),
                signedRenewalInfo: signer.signRenewalInfo(renewal), status: .revoked),
            version: "2.0", signedDate: Self.signedDate)
        tokens = [
            signer.signTransaction(transaction), signer.signRenewalInfo(renewal), signer.signNotification(notification),
        ]
        sandbox = try SignedDataVerifier(
            rootCertificates: [authority.rootDER], bundleID: Self.bundleID, appAppleID: Self.appAppleID,
            environment: .sandbox, now: { Self.signedDate })
        production = try SignedDataVerifier(
            rootCertificates: [authority.rootDER], bundleID: Self.bundleID, appAppleID: Self.appAppleID,
            environment: .production, now: { Self.signedDate })
    }

    /// The header and payload JSON of each seed token, decoded, for JSON-level mutations.
    var decodedParts: [(header: FuzzJSON, payload: FuzzJSON)] {
        tokens.compactMap { token in
            let parts = token.split(separator: ".").map { Self.base64URLDecode(String($0)) }
            guard parts.count == 3, let header = parts[0].flatMap({ try? FuzzJSON(parsing: $0) }),
                let payload = parts[1].flatMap({ try? FuzzJSON(parsing: $0) })
            else { return nil }
            return (header, payload)
        }
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func base64URLEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
