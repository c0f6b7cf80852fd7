import Foundation
import PipelineCore
import PipelineTesting
import Testing

@testable import StubStore

/// The stub store reads a receipt's signed payload from a `JSONTape`, leaving to `JSONDecoder`
/// what the tape will not judge: on every payload it must give what `WireCoding.decoder()` gives.
@Suite struct StubReceiptTapeTests {
    private static func reference(_ bytes: [UInt8]) -> StubReceipt? {
        try? WireCoding.decoder().decode(StubReceipt.self, from: Data(bytes))
    }

    @Test func payloadsAsTheStubWritesThem_areReadByTheTape() throws {
        var random = FuzzRandom(seed: 0x57_0B)
        for round in 0..<1_000 {
            let bytes = Array(try WireCoding.encoder().encode(random.stubReceipt()))
            let tape = try #require(JSONTape(bytes))
            let expected = try #require(Self.reference(bytes))
            #expect(try StubReceipt(tape.root) == expected, "round \(round)")
            #expect(StubReceipt.decode(bytes) == expected, "round \(round)")
        }
    }

    @Test func changedAndDamagedPayloads_decodeAsJSONDecoderDecodesThem() throws {
        var random = FuzzRandom(seed: 0x57_0C)
        var answeredByTape = 0
        for round in 0..<2_000 {
            let written = Array(try WireCoding.encoder().encode(random.stubReceipt()))
            let bytes = random.oneIn(4) ? random.damaged(written) : try random.changed(written)
            #expect(StubReceipt.decode(bytes) == Self.reference(bytes), "round \(round)")
            if let tape = JSONTape(bytes), (try? StubReceipt(tape.root)) != nil { answeredByTape += 1 }
        }
        #expect(answeredByTape > 2_000 / 4, "the tape answered \(answeredByTape) of 2000")
    }
}

extension FuzzRandom {
    fileprivate mutating func stubReceipt() -> StubReceipt {
        let date = { (random: inout FuzzRandom) in
            Date(timeIntervalSince1970: Double(random.below(2_000_000_000_000)) / 1000)
        }
        var receipt = StubReceipt(
            bundleID: pick(["com.example.game", "a \"quoted\" / app", "été"]), applicationVersion: "\(below(50))",
            environment: pick([.production, .sandbox]),
            transactions: (0..<below(4)).map { index in
                StubReceipt.Transaction(
                    transactionID: "\(1_000_000 + index)", originalTransactionID: maybe { _ in "999" },
                    productID: "com.example.coins\(index)", quantity: below(5) + 1, purchaseDate: date(&self),
                    expiresDate: maybe { date(&$0) }, cancellationDate: maybe { date(&$0) },
                    cancellationReason: maybe { $0.pick(["0", "1"]) }, webOrderLineItemID: maybe { _ in "7000" },
                    appAccountToken: maybe { _ in UUID().uuidString })
            }, createdAt: date(&self), failFirst: maybe { $0.below(3) }, transientUntil: maybe { date(&$0) },
            transientStatus: maybe { _ in 21005 })
        if oneIn(20) { receipt.rawEnvironment = "Elsewhere" }
        return receipt
    }
}
