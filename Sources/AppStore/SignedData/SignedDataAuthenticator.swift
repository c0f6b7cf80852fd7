import Crypto
import Foundation
import Synchronization

/// Whether a JWS was signed by the App Store: its `x5c` chain leads to a configured root by
/// Apple's rules, valid at the payload's `signedDate`, and its ES256 signature verifies with
/// the leaf's key. What the payload says (which app, which environment) is not looked at:
/// ``SignedDataVerifier`` checks that on top, and the intake needs only this much to refuse
/// what Apple did not sign.
///
/// Chains are cached once they validate: the App Store signs with a handful of leaves for
/// months, so after the first payload of a leaf each check costs one ECDSA verification.
/// Only chains that validated are kept, so a stream of forged ones cannot fill the cache.
///
/// ```swift
/// let apple = try SignedDataAuthenticator(rootCertificates: [SignedDataVerifier.appleRootCAG3])
/// try await apple.authenticate(signedPayload)  // throws VerificationError
/// ```
public struct SignedDataAuthenticator: Sendable {
    private let chainValidator: CertificateChainValidator
    private let chains: ValidatedChainCache
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - rootCertificates: The trusted roots, DER.
    ///   - now: The clock, read only for payloads without a `signedDate`.
    /// - Throws: ``SignedDataConfigurationError`` for no or malformed roots.
    public init(
        rootCertificates: [[UInt8]], now: @escaping @Sendable () -> Date = { Date() }
    ) throws(SignedDataConfigurationError) {
        self.chainValidator = try CertificateChainValidator(rootCertificates: rootCertificates)
        self.chains = ValidatedChainCache()
        self.now = now
    }

    /// Trusts Apple Root CA - G3 alone, as production should.
    public static var appleRoot: SignedDataAuthenticator {
        // The built-in root is a constant that parses (SignedDataVerifierTests): this cannot fail.
        try! SignedDataAuthenticator(rootCertificates: [SignedDataVerifier.appleRootCAG3])
    }

    /// Checks that `token` was signed by the App Store.
    /// - Throws: ``VerificationError`` (`invalidFormat`, `invalidChain` or `invalidSignature`).
    public func authenticate(_ token: String) async throws(VerificationError) {
        _ = try await authenticated(token, as: SignedDateOnly.self)
    }

    /// The payload of `token`, once it is known to be the App Store's.
    func authenticated<Payload: SignedPayload>(
        _ token: String, as type: Payload.Type
    ) async throws(VerificationError) -> Payload {
        let jws = try CompactJWS(token)
        let payload: Payload
        do {
            payload = try AppStoreJSON.makeDecoder().decode(Payload.self, from: Data(jws.payload))
        } catch {
            throw .invalidFormat("JWS payload is not a \(Payload.self) JSON object")
        }
        let key = try await leafKey(jws, at: payload.signedDate ?? now())
        try jws.verifySignature(with: key)
        return payload
    }

    /// Validates a chain as ``authenticated(_:as:)`` does, without a JWS.
    func validateChain(leaf: [UInt8], intermediate: [UInt8], at time: Date) async throws(VerificationError) {
        _ = try await chainValidator.validate(leaf: leaf, intermediate: intermediate, at: time)
    }

    private func leafKey(_ jws: CompactJWS, at time: Date) async throws(VerificationError) -> P256.Signing.PublicKey {
        let (leaf, intermediate) = (jws.certificateChain[0], jws.certificateChain[1])
        if let key = chains.chain(leaf: leaf, intermediate: intermediate, at: time)?.leafKey { return key }
        let chain = try await chainValidator.validate(leaf: leaf, intermediate: intermediate, at: time)
        guard let key = chain.leafKey else { throw .invalidChain("leaf key is not P-256") }
        chains.keep(chain, leaf: leaf, intermediate: intermediate)
        return key
    }
}

/// Only what the chain's validation time needs from a payload; any JSON object decodes.
private struct SignedDateOnly: SignedPayload {
    var signedDate: Date?
}

/// Chains that validated, by the digest of their leaf and intermediate, with the span in
/// which they hold. Bounded: Apple has few leaves, and only validated chains get in.
final class ValidatedChainCache: Sendable {
    private let entries = Mutex<[[UInt8]: CertificateChainValidator.ValidatedChain]>([:])
    private let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    func chain(leaf: [UInt8], intermediate: [UInt8], at time: Date) -> CertificateChainValidator.ValidatedChain? {
        let found = entries.withLock { $0[Self.digest(leaf, intermediate)] }
        guard let found, found.validity.contains(time) else { return nil }
        return found
    }

    func keep(_ chain: CertificateChainValidator.ValidatedChain, leaf: [UInt8], intermediate: [UInt8]) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[Self.digest(leaf, intermediate)] = chain
        }
    }

    private static func digest(_ leaf: [UInt8], _ intermediate: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: leaf)
        hash.update(data: Array(SHA256.hash(data: intermediate)))
        return Array(hash.finalize())
    }
}
