import Foundation

/// A payload the App Store signs: what the verifier needs from it before trusting it.
protocol SignedPayload: Decodable {
    /// When the App Store signed it; the certificate chain is validated at this time.
    var signedDate: Date? { get }
}

extension JWSTransactionDecodedPayload: SignedPayload {}
extension JWSRenewalInfoDecodedPayload: SignedPayload {}
extension ResponseBodyV2DecodedPayload: SignedPayload {}
