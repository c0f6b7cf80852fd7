import Foundation
import Huawei
import Testing

/// `IAP_HUAWEI_PUBLIC_KEY` is read without swift-crypto's DER init, which freed its key twice
/// (and aborted the process now and then) for bytes that are neither SPKI nor PKCS #1.
@Suite struct HuaweiPublicKeyTests {
    @Test func theStubsKeyIsRead() {
        #expect(HuaweiPublicKey(base64: StubKey.base64) != nil)
    }

    @Test func malformedKeysAreRefusedAndNeverAbort() {
        let good = Array(Data(base64Encoded: StubKey.base64)!)
        var generator = SystemRandomNumberGenerator()
        // Garbage, truncations, and the key with one byte changed: several hundred refusals,
        // where the double free aborted in about one run of five.
        let garbage = (0..<100).map { _ in (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let truncated = stride(from: 1, to: good.count, by: 7).map { Array(good.prefix($0)) }
        var altered: [[UInt8]] = []
        for index in 0..<40 {
            var changed = good
            changed[index] ^= 0xFF
            altered.append(changed)
        }
        func reads(_ bytes: [UInt8]) -> Bool { HuaweiPublicKey(base64: Data(bytes).base64EncodedString()) != nil }
        #expect(!garbage.contains(where: reads))
        #expect(!truncated.contains(where: reads))
        // A change inside the modulus may still be a key; the rest of the header is refused.
        #expect(altered.filter(reads).count < 20)
    }
}
