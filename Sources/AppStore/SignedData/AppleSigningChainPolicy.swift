import SwiftASN1
import X509

/// Apple's requirements for a chain that signs App Store data, on top of RFC 5280.
///
/// Exactly leaf, intermediate, root; the leaf carries the receipt-signing marker
/// `1.2.840.113635.100.6.11.1` and the intermediate the WWDR marker `1.2.840.113635.100.6.2.1`.
/// Without the markers, any certificate Apple's root ever issued (a developer's, a website's)
/// could sign transactions.
struct AppleSigningChainPolicy: VerifierPolicy {
    /// Marks the App Store's receipt-signing leaf certificates.
    static let receiptSigningOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    /// Marks Apple Worldwide Developer Relations intermediate CAs.
    static let wwdrIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]

    /// The markers are not critical; this policy only requires their presence.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "chain has \(chain.count) certificates, not leaf, intermediate, root")
        }
        guard chain[0].extensions[oid: Self.receiptSigningOID] != nil else {
            return .failsToMeetPolicy(reason: "leaf lacks Apple's receipt-signing OID 1.2.840.113635.100.6.11.1")
        }
        guard chain[1].extensions[oid: Self.wwdrIntermediateOID] != nil else {
            return .failsToMeetPolicy(reason: "intermediate lacks Apple's WWDR OID 1.2.840.113635.100.6.2.1")
        }
        return .meetsPolicy
    }
}
