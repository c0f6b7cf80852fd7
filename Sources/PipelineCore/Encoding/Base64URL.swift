import Foundation

/// Unpadded base64url, as compact JWS uses it ([RFC 7515 §2](https://www.rfc-editor.org/rfc/rfc7515#section-2)).
public enum Base64URL {
    /// Encodes `bytes` as unpadded base64url.
    /// - Parameter bytes: The bytes to encode.
    /// - Returns: Text of `A-Z a-z 0-9 - _` only.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.last == "=" { text.removeLast() }
        return text
    }

    /// Decodes unpadded base64url strictly.
    ///
    /// Padding, whitespace and the standard alphabet's `+` and `/` are refused: JWS never
    /// contains them, so their presence means the text was not made as a JWS.
    /// - Parameter text: The text to decode.
    /// - Returns: The bytes, or `nil` if `text` is not unpadded base64url.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(utf8: text.utf8)
    }

    public static func decode(utf8 text: some Collection<UInt8>) -> [UInt8]? {
        var standard = ""
        standard.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "-"): standard.append("+")
            case UInt8(ascii: "_"): standard.append("/")
            default: return nil
            }
        }
        switch standard.utf8.count % 4 {
        case 0: break
        case 2: standard += "=="
        case 3: standard += "="
        default: return nil
        }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
