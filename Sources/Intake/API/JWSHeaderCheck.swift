import Foundation

/// The intake's look at a `signedPayload` before storing it: a compact JWS whose header
/// (decoded, nothing verified) says ES256 and carries an `x5c` chain of three certificates,
/// as every notification Apple signs does. Junk is refused at the door instead of taking a
/// row and a validator's time; the signature and chain are still checked by the validator.
enum JWSHeaderCheck {
    /// An Apple certificate is under 2 KiB; base64 of 16 KiB is far beyond any.
    static let maximumCertificateLength = 22 * 1024

    /// - Returns: nil when the header looks like Apple's, else what is wrong.
    static func problem(_ jws: String) -> String? {
        guard ReceiptRequest.isCompactJWS(jws) else {
            return "signedPayload must be a compact JWS (three base64url parts)"
        }
        let encoded = jws.prefix { $0 != "." }
        guard encoded.utf8.count <= 4 * maximumCertificateLength, let data = base64URLDecoded(encoded),
            let header = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return "the JWS header is not base64url JSON" }
        guard header["alg"] as? String == "ES256" else { return "the JWS header's alg is not ES256" }
        guard let chain = header["x5c"] as? [Any], chain.count == 3,
            chain.allSatisfy({ ($0 as? String).map(isCertificate) ?? false })
        else { return "the JWS header has no x5c chain of three base64 certificates" }
        return nil
    }

    private static func isCertificate(_ text: String) -> Bool {
        (1...maximumCertificateLength).contains(text.utf8.count) && Data(base64Encoded: text) != nil
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
