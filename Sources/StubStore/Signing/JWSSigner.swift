import AppStore
import Crypto
import Foundation
import PipelineCore

/// Signs payloads as the App Store does: compact JWS, ES256, header
/// `{"alg":"ES256","x5c":[leaf, intermediate, root]}` with standard base64 DER certificates.
///
/// ```swift
/// let jws = try signer.sign(JWSTransactionDecodedPayload(transactionId: "2000000123", ...))
/// ```
public struct JWSSigner: Sendable {
    /// The key's raw scalar: swift-crypto's key type is not `Sendable` on every platform.
    private let privateKeyBytes: [UInt8]
    /// The `x5c` certificates, DER: leaf (matching the private key), intermediate, root.
    public private(set) var certificateChain: [[UInt8]]

    /// Creates a signer.
    /// - Parameters:
    ///   - privateKey: The leaf certificate's key.
    ///   - certificateChain: The `x5c` certificates, DER, leaf first.
    public init(privateKey: P256.Signing.PrivateKey, certificateChain: [[UInt8]]) {
        self.privateKeyBytes = Array(privateKey.rawRepresentation)
        self.certificateChain = certificateChain
    }

    /// The same key with other `x5c` certificates: for tests of chains a verifier must refuse.
    /// - Parameter certificateChain: The `x5c` certificates, DER.
    /// - Returns: A signer that signs with this signer's key and sends `certificateChain`.
    public func replacingCertificateChain(_ certificateChain: [[UInt8]]) -> JWSSigner {
        var signer = self
        signer.certificateChain = certificateChain
        return signer
    }

    /// The header every JWS from this signer carries, as JSON.
    public var headerJSON: [UInt8] {
        struct Header: Encodable {
            var alg = "ES256"
            var x5c: [String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let header = Header(x5c: certificateChain.map { Data($0).base64EncodedString() })
        // Two strings and a string array always encode.
        return (try? encoder.encode(header)).map(Array.init) ?? []
    }

    /// Signs `payload`, encoded with ``AppStore/AppStoreJSON`` (dates as millisecond integers).
    /// - Parameter payload: Any JSON object.
    /// - Returns: The compact JWS.
    /// - Throws: If `payload` does not encode, or signing fails.
    public func sign(_ payload: some Encodable) throws -> String {
        try sign(headerJSON: headerJSON, payloadJSON: Array(AppStoreJSON.makeEncoder().encode(payload)))
    }

    /// Signs arbitrary header and payload bytes: for tests that need a JWS no App Store would make.
    /// - Parameters:
    ///   - headerJSON: The header, normally ``headerJSON``.
    ///   - payloadJSON: The payload.
    /// - Returns: `base64url(header).base64url(payload).base64url(r || s)`.
    /// - Throws: If signing fails.
    public func sign(headerJSON: [UInt8], payloadJSON: [UInt8]) throws -> String {
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON)
        let privateKey = try P256.Signing.PrivateKey(rawRepresentation: privateKeyBytes)
        let signature = try privateKey.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
