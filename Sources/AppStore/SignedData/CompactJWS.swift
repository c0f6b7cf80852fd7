import Crypto
import Foundation
import PipelineCore

/// A compact JWS split and decoded; nothing about it is trusted yet.
///
/// Only the shape is checked here: three base64url parts, a JSON header with `alg: ES256`, and
/// an `x5c` of exactly three base64 certificates of bounded size. See
/// [RFC 7515 §7.1](https://www.rfc-editor.org/rfc/rfc7515#section-7.1).
struct CompactJWS {
    /// Apple's JWS are a few KiB; a notification embeds two more. Anything far larger is not Apple's.
    static let maximumLength = 512 * 1024
    /// A certificate in `x5c`, DER. Apple's are under 2 KiB.
    static let maximumCertificateBytes = 16 * 1024

    /// The `x5c` certificates, DER: leaf, intermediate, root.
    let certificateChain: [[UInt8]]
    /// The decoded payload: JSON, not yet parsed.
    let payload: [UInt8]
    /// The decoded signature: for ES256, `r || s`, 64 bytes.
    let signature: [UInt8]
    /// `header.payload` as received: what the signature covers.
    let signingInput: [UInt8]

    /// The payload of `token` as a JSON object, read WITHOUT checking anything but its
    /// shape: for peeks that decide what to ask or whether we hold it, never what to apply.
    static func unverifiedPayload(_ token: String) -> [String: Any]? {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard token.utf8.count <= maximumLength, parts.count == 3,
            let payload = Base64URL.decode(utf8: parts[1])
        else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
    }

    init(_ token: String) throws(VerificationError) {
        guard token.utf8.count <= Self.maximumLength else {
            throw .invalidFormat("JWS is longer than \(Self.maximumLength) bytes")
        }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalidFormat("JWS has \(parts.count) parts, not 3") }
        guard let headerJSON = Base64URL.decode(utf8: parts[0]), !headerJSON.isEmpty else {
            throw .invalidFormat("JWS header is not base64url")
        }
        guard let payload = Base64URL.decode(utf8: parts[1]), !payload.isEmpty else {
            throw .invalidFormat("JWS payload is not base64url")
        }
        guard let signature = Base64URL.decode(utf8: parts[2]) else {
            throw .invalidFormat("JWS signature is not base64url")
        }
        self.certificateChain = try Self.es256CertificateChain(headerJSON)
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(token.utf8[..<parts[1].endIndex])
    }

    /// Checks the signature over ``signingInput`` with `key`.
    /// - Parameter key: The leaf certificate's key, once its chain is validated.
    func verifySignature(with key: P256.Signing.PublicKey) throws(VerificationError) {
        // JWS carries ECDSA signatures as raw r || s (RFC 7518 §3.4), not DER.
        guard signature.count == 64 else {
            throw .invalidSignature("ES256 signature is \(signature.count) bytes, not 64")
        }
        let ecdsa: P256.Signing.ECDSASignature
        do {
            ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        } catch {
            throw .invalidSignature("ES256 signature is not r || s")
        }
        guard key.isValidSignature(ecdsa, for: signingInput) else {
            throw .invalidSignature("ES256 signature does not verify with the leaf certificate's key")
        }
    }

    // MARK: Header

    private struct Header: Decodable {
        var alg: String?
        var x5c: [String]?
        var crit: [String]?
    }

    private static func es256CertificateChain(_ headerJSON: [UInt8]) throws(VerificationError) -> [[UInt8]] {
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerJSON))
        } catch {
            throw .invalidFormat("JWS header is not a JSON object with a string alg and a string array x5c")
        }
        guard let alg = header.alg else { throw .invalidFormat("JWS header has no alg") }
        // Only ES256: never `none`, never what the token asks for (RFC 8725 §3.1).
        guard alg == "ES256" else { throw .invalidFormat("JWS alg is '\(alg.prefix(16))', not ES256") }
        // Extensions we would have to understand (RFC 7515 §4.1.11); Apple sends none.
        guard header.crit == nil else { throw .invalidFormat("JWS header has crit parameters") }
        guard let x5c = header.x5c else { throw .invalidFormat("JWS header has no x5c") }
        guard x5c.count == 3 else { throw .invalidFormat("x5c has \(x5c.count) certificates, not 3") }
        // base64 of maximumCertificateBytes, rounded up.
        let maximumEncoded = (maximumCertificateBytes + 2) / 3 * 4
        var chain: [[UInt8]] = []
        for (index, encoded) in x5c.enumerated() {
            guard encoded.utf8.count <= maximumEncoded else {
                throw .invalidFormat("x5c[\(index)] is larger than \(maximumCertificateBytes) bytes")
            }
            // x5c is standard base64 with padding (RFC 7515 §4.1.6), not base64url.
            guard let der = Data(base64Encoded: encoded), !der.isEmpty else {
                throw .invalidFormat("x5c[\(index)] is not base64")
            }
            chain.append(Array(der))
        }
        return chain
    }
}
