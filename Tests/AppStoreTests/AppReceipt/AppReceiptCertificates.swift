import Foundation
import X509

@testable import AppStore

/// Finds things inside a receipt's container, for tests that tamper with or re-trust them.
enum AppReceiptCertificates {
    /// The DER of the container's certificate whose subject contains `name`.
    static func find(_ name: String, in der: [UInt8]) throws -> [UInt8]? {
        let container = try PKCS7SignedData(berEncoded: der[...])
        return try container.certificates.first { "\($0.subject)".contains(name) }.map { try $0.derBytes() }
    }

    /// Where `needle` first occurs in `haystack`.
    static func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }

    /// `bytes` with the byte at `index` inverted.
    static func flipped(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        var copy = bytes
        copy[index] ^= 0xFF
        return copy
    }
}
