import Crypto
import CryptoExtras
import Foundation

/// The app's IAP public key, which checks what Huawei signs: purchase data
/// (`dataSignature`) and subscription notifications (`notificationSignature`).
///
/// Huawei signs with SHA256WithRSA (PKCS #1 v1.5) unless asked for SHA256WithRSA/PSS, and
/// says which in `signatureAlgorithm`.
/// https://developer.huawei.com/consumer/en/doc/HMSCore-Guides/verifying-signature-returned-result-0000001050033088
public struct HuaweiPublicKey: Sendable {
    let key: _RSA.Signing.PublicKey

    /// The key from its base64 DER (SubjectPublicKeyInfo), as AppGallery Connect shows it;
    /// nil for anything else.
    public init?(base64: String) {
        let compact = base64.filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: compact), let (n, e) = Self.rsaComponents(Array(der)),
            let key = try? _RSA.Signing.PublicKey(n: n, e: e)
        else { return nil }
        self.key = key
    }

    public init(_ key: _RSA.Signing.PublicKey) {
        self.key = key
    }

    /// The two algorithms Huawei names.
    public enum Algorithm: String, Sendable {
        case pkcs1 = "SHA256WithRSA"
        case pss = "SHA256WithRSA/PSS"

        /// What `signatureAlgorithm` names: absent means Huawei's default, PKCS #1 v1.5; a
        /// name we do not know is nil (and the signature does not hold).
        public init?(name: String?) {
            guard let name, !name.isEmpty else {
                self = .pkcs1
                return
            }
            switch name.uppercased() {
            case "SHA256WITHRSA": self = .pkcs1
            case "SHA256WITHRSA/PSS": self = .pss
            default: return nil
            }
        }
    }

    /// Whether `signature` (base64) signs `text`'s UTF-8 bytes as `algorithm` says.
    public func isValid(signature: String, of text: String, algorithm: String?) -> Bool {
        guard let algorithm = Algorithm(name: algorithm), let bytes = Data(base64Encoded: signature),
            !bytes.isEmpty
        else { return false }
        let digest = SHA256.hash(data: Array(text.utf8))
        let padding: _RSA.Signing.Padding = algorithm == .pss ? .PSS : .insecurePKCS1v1_5
        return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: bytes), for: digest, padding: padding)
    }
}
