import AppStore
import Foundation
import PipelineCore
import StorePlugins

/// What the intake takes of Apple: the two members of `POST /v1/receipts` and the App Store
/// Server Notifications at `POST /v1/apple/notifications`, each checked for its shape only
/// (what it says is the validator's to judge), and a notification for Apple's signature.
extension AppleStore {
    static let receiptData = "receipt_data"
    static let signedTransaction = "signed_transaction"
    static let signedPayload = "signedPayload"

    // MARK: Receipts

    /// A legacy app receipt (base64) or a StoreKit 2 signed transaction (JWS).
    public var receiptMembers: [String] { [Self.receiptData, Self.signedTransaction] }

    public func receiptEvidence(_ value: Any, member: String) throws(StoreInputError) -> StoreEvidence {
        guard let text = value as? String else {
            throw .invalid("invalid_\(member)", "\(member) must be a string", member: member)
        }
        if member == Self.receiptData {
            guard Self.isBase64(text) else {
                throw .invalid("invalid_receipt_data", "receipt_data must be base64", member: member)
            }
            return .apple(.receipt, text)
        }
        guard Self.isCompactJWS(text) else {
            throw .invalid(
                "invalid_signed_transaction", "signed_transaction must be a compact JWS (three base64url parts)",
                member: member)
        }
        return .apple(.signedTransaction, text)
    }

    // MARK: Notifications

    public var takesNotifications: Bool { true }

    /// The signature is inside the body: the intake checks it as JSON before it is read.
    public var notificationBody: NotificationBody { .checkedFirst(read: [[Self.signedPayload]]) }

    /// `{"signedPayload": "<JWS>"}` (other members Apple may add are ignored), signed by the
    /// App Store for this app's bundle id (another's is a credential that does not hold: the
    /// next app's plug-in is asked); kept once per payload, which Apple sends again as it was
    /// until it is answered.
    public func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
        let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
        guard let payload = object?[Self.signedPayload] as? String else {
            throw .invalid("missing_field", "signedPayload is required", member: Self.signedPayload)
        }
        guard Self.isCompactJWS(payload) else {
            throw .invalid(
                "invalid_signed_payload", "signedPayload must be a compact JWS (three base64url parts)",
                member: Self.signedPayload)
        }
        do {
            try await setup.notificationSignatures.authenticate(payload)
        } catch {
            throw .invalid(
                "invalid_signed_payload", "signedPayload is not signed by the App Store (\(error))",
                member: Self.signedPayload)
        }
        // Apple signed the app it is about: this app's, or another app's credential to try.
        let bundleID = NotificationPeek(payload)?.bundleID
        guard bundleID == setup.verifyReceipt.bundleID else {
            throw .unauthorized(
                "signedPayload is signed for \(bundleID.map { "bundle \($0)" } ?? "no app"), not for this app's bundle")
        }
        return InboundNotification(
            messageID: PayloadHash.notification(payload), evidence: .apple(.notification, payload),
            keyedBy: .payloadHash)
    }

    // MARK: Shapes

    static func isBase64(_ value: String) -> Bool {
        guard !value.isEmpty, let data = Data(base64Encoded: value, options: .ignoreUnknownCharacters),
            !data.isEmpty
        else { return false }
        // `ignoreUnknownCharacters` tolerates line breaks (Apple's own encoders wrap lines) but nothing else.
        // A native string's bytes in place: iterating `utf8` was 2.5 % of the intake with receipts of Apple's size.
        return value.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isBase64Byte) }
            ?? value.utf8.allSatisfy(isBase64Byte)
    }

    private static func isBase64Byte(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == 0x2B || byte == 0x2F || byte == 0x3D || byte == 0x0A || byte == 0x0D
    }

    static func isCompactJWS(_ value: String) -> Bool {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy { byte in
                        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                            || byte == 0x2D || byte == 0x5F
                    }
            }
    }
}
