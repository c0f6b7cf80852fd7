import Foundation
import PipelineTesting
import StubStore
import Testing

@testable import AppStore

/// The PKCS #7 receipt parser (container, signer info, receipt attributes) and the verifier
/// under random and mutated receipts: never a crash, every failure an ``AppReceiptError``, and
/// whatever verifies says exactly what one of the real receipts says.
@Suite struct AppReceiptFuzzTests {
    /// Apple's receipt vectors, copied with their licences into AppStoreTests (read in place).
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../AppStoreTests/AppReceipt/Vectors").standardized
    static let vectorFiles = [
        "TPInAppReceipt/receipt-production", "TPInAppReceipt/receipt-sandbox-g5", "TPInAppReceipt/receipt-xcode",
        "receipt_decoder/receipt", "AppReceiptValidator/mindnode_mac_sha256_receipt",
        "go-applereceipt/decode_test.go__sandboxReceipt.b64",
    ]

    /// A vector's DER: raw, or base64 text.
    static func der(_ file: String) throws -> [UInt8] {
        let raw = Array(try Data(contentsOf: vectors.appendingPathComponent(file)))
        if raw.first == 0x30 { return raw }
        let text = String(decoding: raw, as: UTF8.self).filter { !$0.isWhitespace }
        return Array(try #require(Data(base64Encoded: text)))
    }

    struct Seeds {
        var receipts: [[UInt8]] = []
        /// What each receipt says, once verified.
        var truths: [AppReceipt] = []
        var verifiers: [AppReceiptVerifier] = []
    }

    /// The vectors and two receipts the stub store signs, each with the verifier that accepts it.
    static func seeds() async throws -> Seeds {
        var seeds = Seeds()
        let apple = try AppReceiptVerifier(
            configuration: .init(
                bundleID: nil, xcodeCertificates: [try der("TPInAppReceipt/StoreKitTestCertificate.cer")]))
        for file in vectorFiles {
            let der = try der(file)
            seeds.receipts.append(der)
            seeds.truths.append(try await apple.verify(der: der))
            seeds.verifiers.append(apple)
        }
        let stub = StubAppStore(configuration: StubStoreConfiguration(bundleID: "com.example.game", seed: 11))
        let stubVerifier = try AppReceiptVerifier(
            configuration: .init(rootCertificates: [stub.receiptAuthority.rootDER], bundleID: "com.example.game"))
        for products in [["com.example.coins100"], ["com.example.coins500", "com.example.vip.monthly"]] {
            let receipt = StubReceipt(
                bundleID: "com.example.game",
                transactions: products.enumerated().map {
                    .init(transactionID: "20000000000\($0.offset)", productID: $0.element)
                })
            let der = Array(try #require(Data(base64Encoded: stub.issuePKCS7(receipt))))
            seeds.receipts.append(der)
            seeds.truths.append(try await stubVerifier.verify(der: der))
            seeds.verifiers.append(stubVerifier)
        }
        return seeds
    }

    @Test func randomAndMutatedReceipts_failWithAReasonOrSayWhatARealOneSays() async throws {
        let seeds = try await Self.seeds()
        await FuzzBudget(defaultIterations: 400).run("appReceipt.verify") { random, _ in
            // Given a real receipt mutated one to four times (spliced with another now and
            // then), or noise
            let index = random.below(seeds.receipts.count)
            var bytes = seeds.receipts[index]
            if random.oneIn(10) {
                bytes = random.bytes(random.below(2_048))
            } else {
                for _ in 0...random.below(4) { FuzzBytes.mutate(&bytes, seeds: seeds.receipts, random: &random) }
            }

            // When it is verified, Then it fails with a reason, or is one of the real receipts
            do throws(AppReceiptError) {
                let receipt = try await seeds.verifiers[index].verify(der: bytes)
                #expect(seeds.truths.contains(receipt), "a mutated receipt verified to something new")
            } catch {
                #expect(!error.message.isEmpty)
            }
            // And inspecting it, which runs every check it can, answers too
            let report = await seeds.verifiers[index].inspect(der: bytes)
            if report.valid { #expect(report.receipt.map(seeds.truths.contains) == true) }
            return 2
        }
    }

    @Test func aChangeInTheSignedContent_neverVerifies() async throws {
        let seeds = try await Self.seeds()
        try await FuzzBudget(defaultIterations: 300).run("appReceipt.content") { random, _ in
            // Given a real receipt with one to three bits flipped in the bytes its signature covers
            let index = random.below(seeds.receipts.count)
            var bytes = seeds.receipts[index]
            let content = try #require(try PKCS7SignedData(berEncoded: bytes[...]).content)
            try #require(!content.isEmpty)
            for _ in 0...random.below(3) {
                bytes[content.startIndex + random.below(content.count)] ^= 1 << UInt8(random.below(8))
            }
            guard bytes != seeds.receipts[index] else { return 0 }
            // Then it never verifies
            await #expect(throws: AppReceiptError.self) { try await seeds.verifiers[index].verify(der: bytes) }
            return 1
        }
    }

    @Test func mutatedReceiptPayloads_decodeOrFailWithAReason() async throws {
        let seeds = try await Self.seeds()
        let payloads = try seeds.receipts.map { Array(try #require(try PKCS7SignedData(berEncoded: $0[...]).content)) }
        try await FuzzBudget(defaultIterations: 3_000).run("appReceipt.payload") { random, _ in
            // Given the receipt attribute SET itself, mutated (no signature in the way)
            let bytes = FuzzBytes.input(from: payloads, random: &random, maxLength: 1 << 20)
            // Then it decodes, or fails with an AppReceiptError (typed: nothing else can escape)
            let receipt: AppReceipt
            do throws(AppReceiptError) {
                receipt = try AppReceiptPayload.decode(bytes[...])
            } catch {
                #expect(!error.message.isEmpty)
                return 1
            }
            // And what decodes is written back as Apple writes receipts and reads the same
            // (once normalized: an absent line-item id is written as 0, as Apple does).
            if let encoded = try? receipt.derEncodedPayload() {
                let once = try AppReceiptPayload.decode(encoded[...])
                #expect(try AppReceiptPayload.decode(try once.derEncodedPayload()[...]) == once)
            }
            return 1
        }
    }
}
