import AppStore
import Foundation
import PropertyBased
import Testing

/// Whatever bytes arrive, the verifier answers with a value or an ``AppReceiptError``, never a
/// crash; and no mutation of a real receipt changes what a verified receipt says.
@Suite struct AppReceiptPropertyTests {
    static let original = (try? AppReceiptFixtures.receipt("TPInAppReceipt/receipt-sandbox-g5")) ?? []

    @Test func randomBytes_areRejectedWithAnError() async throws {
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: nil)
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...600)) { bytes in
            // A leading SEQUENCE tag makes the parser go deeper than pure noise would.
            for candidate in [bytes, [0x30, 0x80] + bytes] {
                await #expect(throws: AppReceiptError.self) { try await verifier.verify(der: candidate) }
            }
        }
    }

    @Test func mutatedReceipt_isRejectedOrSaysExactlyWhatTheOriginalSays() async throws {
        // Given a real receipt and what it says
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: "dev.bonzer.weeka.app")
        let truth = try await verifier.verify(der: Self.original)
        let count = Self.original.count
        let mutation = Gen.int(in: 0..<count).array(of: 1...4)
        await propertyCheck(count: 300, input: mutation, Gen.uint8(in: 1...255)) { positions, mask in
            // When one to four of its bytes are changed
            var mutated = Self.original
            for position in positions { mutated[position] ^= mask }
            // Then it fails with an error, or (a change in what nothing vouches for, such as the
            // root copy the container carries) it verifies to the very same receipt
            do throws(AppReceiptError) {
                #expect(try await verifier.verify(der: mutated) == truth)
            } catch {
                // Typed throws: every failure is an AppReceiptError with a message.
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test func truncatedOrExtendedReceipt_isAnError() async throws {
        let verifier = try AppReceiptFixtures.appleVerifier(bundleID: nil)
        let count = Self.original.count
        await propertyCheck(count: 200, input: Gen.int(in: 0..<count), Gen.uint8().array(of: 1...16)) { cut, tail in
            await #expect(throws: AppReceiptError.self) {
                try await verifier.verify(der: Array(Self.original.prefix(cut)))
            }
            await #expect(throws: AppReceiptError.self) { try await verifier.verify(der: Self.original + tail) }
        }
    }
}
