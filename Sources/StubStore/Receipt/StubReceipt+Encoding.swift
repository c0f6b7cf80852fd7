import Crypto
import Foundation
import PipelineCore

// MARK: The receipt-data format
//
// receipt-data = base64( "iapstub1." + payload + "." + hex(HMAC-SHA256(key, "iapstub1." + payload)) )
//
// `payload` is the receipt as JSON (``WireCoding``: sorted keys, ISO 8601 dates). The whole is
// standard base64, like Apple's receipts, so anything that checks receipt_data's shape accepts
// it; `base64 -d` shows a person what it holds. The prefix names the format's version and is
// covered by the signature.

extension StubReceipt {
    /// The prefix of every decoded stub receipt, covered by the signature.
    static let formatPrefix = Array("iapstub1.".utf8)
    /// "." plus 64 hex digits of HMAC-SHA256.
    static let signatureSuffixLength = 65

    /// The receipt as `receipt-data`: signed with `signingKey`, then base64.
    ///
    /// - Parameter signingKey: The stub store's key (``StubStoreConfiguration/signingKey``); a
    ///   receipt signed with another key is answered `21003`.
    /// - Returns: Standard base64 with padding, opaque to the pipeline.
    public func encoded(signingKey: String) -> String {
        var signed = Self.formatPrefix
        // Encoding a struct of strings, numbers and dates cannot fail.
        signed += (try? WireCoding.encoder().encode(self)).map(Array.init) ?? []
        let code = HMAC<SHA256>.authenticationCode(for: signed, using: Self.key(signingKey))
        signed.append(UInt8(ascii: "."))
        signed += Array(Self.hex(Array(code)).utf8)
        return Data(signed).base64EncodedString()
    }

    /// The receipt that `receiptData` holds, if `signingKey` signed it.
    ///
    /// - Parameters:
    ///   - receiptData: `receipt-data` as a client sent it.
    ///   - signingKey: The key receipts must be signed with.
    /// - Returns: The receipt, or why it cannot be believed, which maps onto Apple's statuses.
    public static func decode(receiptData: String, signingKey: String) -> Result<StubReceipt, StubReceiptError> {
        guard let data = Data(base64Encoded: receiptData.trimmedOfWhitespaceAndNewlines) else {
            return .failure(.malformed("receipt-data is not base64"))
        }
        let bytes = Array(data)
        guard bytes.starts(with: formatPrefix) else {
            return .failure(.malformed("receipt-data is not a stub receipt"))
        }
        guard bytes.count >= formatPrefix.count + signatureSuffixLength,
            bytes[bytes.count - signatureSuffixLength] == UInt8(ascii: "."),
            let code = unhex(bytes.suffix(signatureSuffixLength - 1))
        else {
            return .failure(.unauthenticated("the receipt carries no signature"))
        }
        let signed = bytes[..<(bytes.count - signatureSuffixLength)]
        guard HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: signed, using: key(signingKey)) else {
            return .failure(.unauthenticated("the signature does not match"))
        }
        guard let receipt = decode(Array(signed.dropFirst(formatPrefix.count))) else {
            return .failure(.malformed("the signed payload is not a receipt"))
        }
        return .success(receipt)
    }

    private static func key(_ signingKey: String) -> SymmetricKey {
        SymmetricKey(data: Array(signingKey.utf8))
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func unhex(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        guard text.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.count / 2)
        var index = text.startIndex
        while index < text.endIndex {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// Why the stub store does not believe a `receipt-data`.
public enum StubReceiptError: Error, Hashable, Sendable {
    /// Not base64, not a stub receipt, or a signed payload that is not a receipt: Apple's `21002`.
    case malformed(String)
    /// Unsigned, or signed with another key, or altered after signing: Apple's `21003`.
    case unauthenticated(String)

    /// The `verifyReceipt` status Apple answers for this kind of receipt.
    public var status: Int {
        switch self {
        case .malformed: 21002
        case .unauthenticated: 21003
        }
    }
}
