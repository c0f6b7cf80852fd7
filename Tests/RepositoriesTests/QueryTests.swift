import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

@Suite struct QueryTests {
    let t0 = Fixture.t0

    @Test(arguments: TestBackend.allCases) func anAccountShowsItsLedgerNewestFirst(_ backend: TestBackend) async throws
    {
        try await withTestDatabase(backend) { database in
            // Given three purchases at different times
            try await database.acceptNew((1...3).map { Fixture.receipt("r\($0)", account: "a1") })
            for i in 1...3 {
                _ = try await SettlementRepository(database).apply(
                    [
                        Fixture.valid(
                            "r\(i)", account: "a1",
                            [Fixture.purchase("t\(i)", product: i == 2 ? Fixture.gems : Fixture.coins)])
                    ],
                    catalog: Fixture.catalog, now: t0.addingTimeInterval(Double(i)))
            }

            // When the account is read with a ledger limit of 2
            let account = try #require(try await LedgerRepository(database).account(id: "a1", ledgerLimit: 2))

            // Then it has both balances and the two newest entries, newest first
            #expect(account.balances == ["coins": 200, "gems": 10])
            #expect(account.ledger.map(\.transactionID) == ["t3", "t2"])
            #expect(account.ledger.map(\.createdAt) == [t0.addingTimeInterval(3), t0.addingTimeInterval(2)])
            #expect(try await LedgerRepository(database).account(id: "nobody") == nil)
            #expect(try await ReceiptRepository(database).receipt(id: "nothing") == nil)
        }
    }

    @Test(arguments: TestBackend.allCases) func outputsEncodeWithTheContractsKeys(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog, now: t0)
            let encoder = WireCoding.encoder()

            let receipt = try Fixture.json(
                String(
                    decoding: try encoder.encode(try await ReceiptRepository(database).receipt(id: "r1")),
                    as: UTF8.self))
            #expect(receipt["receipt_id"] as? String == "r1")
            #expect(receipt["status"] as? String == "credited")
            #expect(receipt["attempts"] as? Int == 1)
            let transaction = try #require((receipt["transactions"] as? [[String: Any]])?.first)
            #expect(transaction["transaction_id"] as? String == "t1")
            #expect(transaction["outcome"] as? String == "credited")

            let account = try Fixture.json(
                String(
                    decoding: try encoder.encode(try await LedgerRepository(database).account(id: "a1")), as: UTF8.self
                ))
            #expect(account["account_id"] as? String == "a1")
            #expect((account["balances"] as? [String: Int]) == ["coins": 100])
            #expect((account["ledger"] as? [[String: Any]])?.first?["receipt_id"] as? String == "r1")

            let summary = String(
                decoding: try encoder.encode(ReceiptSummary(id: "r1", status: .received)), as: UTF8.self)
            #expect(summary == #"{"receipt_id":"r1","status":"received"}"#)
        }
    }
}
