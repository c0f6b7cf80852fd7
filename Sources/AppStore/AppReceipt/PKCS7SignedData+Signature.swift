import Crypto
import Foundation
import SwiftASN1
import X509

extension PKCS7SignedData {
    /// Checks the one signer's signature over the attached content.
    ///
    /// Apple's signer infos say `rsaEncryption` with the digest beside it (SHA-1 before WWDR G5,
    /// SHA-256 since), where swift-certificates' own CMS code expects `sha256WithRSAEncryption`;
    /// both spellings are read here, as are ECDSA signatures (the stub store can make those).
    /// - Returns: The signer's certificate, whose chain is checked next.
    /// - Throws: ``AppReceiptError`` malformed, unsupported or signature invalid.
    func verifySignature() throws(AppReceiptError) -> Certificate {
        guard contentType == Self.dataOID else {
            throw .malformed("the signed content type is \(contentType), not id-data")
        }
        guard let content else { throw .malformed("the container has no attached content (a detached signature)") }
        guard signerInfos.count == 1 else { throw .unsupported("\(signerInfos.count) signers; a receipt has one") }
        let signer = signerInfos[0]
        guard let certificate = certificate(of: signer) else {
            throw .malformed("the signer's certificate is not in the container")
        }
        let algorithm = try Self.signatureAlgorithm(
            digest: signer.digestAlgorithm, signature: signer.signatureAlgorithm)
        var signedBytes = content
        if let attributes = signer.signedAttributes {
            // With signed attributes the signature covers them, and they carry the content's digest.
            guard let expected = signer.messageDigest else {
                throw .malformed("signed attributes without a message-digest")
            }
            guard Self.digest(content, algorithm: signer.digestAlgorithm).elementsEqual(expected) else {
                throw .signatureInvalid("the content does not match the signed message digest")
            }
            signedBytes = attributes[...]
        }
        guard certificate.publicKey.isValidSignature(signer.signature, for: signedBytes, signatureAlgorithm: algorithm)
        else {
            throw .signatureInvalid("the signature does not verify with the signing certificate's key")
        }
        return certificate
    }

    // MARK: Algorithms

    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]

    /// The signature algorithms a digest may pair with, by digest OID.
    private static let pairs:
        [ASN1ObjectIdentifier: (rsa: Certificate.SignatureAlgorithm, named: [ASN1ObjectIdentifier])] = [
            sha1: (.sha1WithRSAEncryption, [[1, 2, 840, 113_549, 1, 1, 5]]),
            sha256: (.sha256WithRSAEncryption, [[1, 2, 840, 113_549, 1, 1, 11], [1, 2, 840, 10045, 4, 3, 2]]),
            sha384: (.sha384WithRSAEncryption, [[1, 2, 840, 113_549, 1, 1, 12], [1, 2, 840, 10045, 4, 3, 3]]),
            sha512: (.sha512WithRSAEncryption, [[1, 2, 840, 113_549, 1, 1, 13], [1, 2, 840, 10045, 4, 3, 4]]),
        ]

    /// The algorithm to verify with: `rsaEncryption` takes the digest's RSA pairing; a named
    /// algorithm must use the signer's digest.
    static func signatureAlgorithm(
        digest: ASN1ObjectIdentifier, signature: ASN1ObjectIdentifier
    ) throws(AppReceiptError) -> Certificate.SignatureAlgorithm {
        guard let pair = pairs[digest] else { throw .unsupported("digest algorithm \(digest)") }
        if signature == rsaEncryption { return pair.rsa }
        guard pair.named.contains(signature) else {
            throw .unsupported("signature algorithm \(signature) with digest \(digest)")
        }
        return signature == pair.named[0] ? pair.rsa : Self.ecdsa(digest)
    }

    private static func ecdsa(_ digest: ASN1ObjectIdentifier) -> Certificate.SignatureAlgorithm {
        switch digest {
        case sha384: .ecdsaWithSHA384
        case sha512: .ecdsaWithSHA512
        default: .ecdsaWithSHA256
        }
    }

    /// `content`'s digest; the caller has checked `algorithm` is one of ``pairs``.
    private static func digest(_ content: ArraySlice<UInt8>, algorithm: ASN1ObjectIdentifier) -> [UInt8] {
        switch algorithm {
        case sha1: Array(Insecure.SHA1.hash(data: content))
        case sha384: Array(SHA384.hash(data: content))
        case sha512: Array(SHA512.hash(data: content))
        default: Array(SHA256.hash(data: content))
        }
    }
}
