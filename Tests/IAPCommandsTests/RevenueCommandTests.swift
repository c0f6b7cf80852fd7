import AppStore
import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// `iap revenue backfill` and `iap revenue rebuild` as an operator runs them after an upgrade:
/// a StoreKit 2 purchase credited before the revenue ledger is priced by the price Apple
/// signed in it, a legacy one by the catalog (estimated), once.
@Suite struct RevenueCommandTests {
    /// A compact JWS whose payload is `claims` (the back-fill reads what the validator verified
    /// when it credited; the signature is not read again).
    static func jws(_ claims: [String: Any]) throws -> String {
        func part(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return part(Data(#"{"alg":"ES256"}"#.utf8)) + "." + part(try JSONSerialization.data(withJSONObject: claims))
            + ".c2lnbmF0dXJl"
    }

    @Test func aBackfillPricesWhatWasCreditedBeforeTheLedgerOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, catalogFile) = (directory.file("iap.sqlite"), directory.file("catalog.json"))
        try Data(
            #"{"products": [{"product_id": "coins", "type": "consumable", "grant": {"currency": "coins", "amount": 100}, "prices": {"USD": 199}}]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: catalogFile))
        // Given two purchases credited before the ledger: one StoreKit 2 transaction Apple
        // priced €0.99 × 2 in Germany, one legacy receipt, which carries no price
        let database = try SQLiteDatabase(path: path)
        let signed = try Self.jws([
            "transactionId": "t-signed", "originalTransactionId": "t-signed", "productId": "coins", "quantity": 2,
            "price": 990, "currency": "EUR", "storefront": "DEU",
        ])
        let receipts = [
            NewReceipt.fixture(accountID: "player-1", kind: .storekit2, payload: signed),
            NewReceipt.fixture(accountID: "player-2"),
        ]
        _ = try await IntakeRepository(database).accept(receipts, now: Date())
        let catalog = Catalog(products: [
            Product(productID: "coins", kind: .consumable, grant: Grant(currency: "coins", amount: 100))
        ])
        _ = try await SettlementRepository(database).apply(
            zip(receipts, ["t-signed", "t-legacy"]).map { receipt, id in
                Verdict(
                    outcome: .valid, receiptID: receipt.id, accountID: receipt.accountID, attempts: 1,
                    transactions: [
                        VerifiedTransaction(
                            transactionID: id, originalTransactionID: id, productID: "coins",
                            quantity: id == "t-signed" ? 2 : 1)
                    ], decidedAt: Date())
            }, catalog: catalog, now: Date().addingTimeInterval(-86_400))
        let environment = ["IAP_DB_PATH": path, "IAP_CATALOG": catalogFile]

        // When the operator back-fills, then asks again
        let first = try await IAPProcess.run(["revenue", "backfill"], environment: environment)
        let second = try await IAPProcess.run(["revenue", "backfill"], environment: environment)
        let rebuilt = try await IAPProcess.run(["revenue", "rebuild"], environment: environment)

        // Then each has its entry: Apple's signed price, exact, and the catalog's, estimated; once
        #expect(first.status == 0 && first.output.contains("2 entries back-filled"), "\(first.output)")
        #expect(first.output.contains("1 payments at the store's signed price, 1 estimated"), "\(first.output)")
        #expect(second.status == 0 && second.output.contains("already back-filled (2 entries)"), "\(second.output)")
        #expect(rebuilt.status == 0 && rebuilt.output.contains("days written again"), "\(rebuilt.output)")
        let rows = try await RevenueRepository(database).page(
            after: .min, since: Date(timeIntervalSince1970: 0), until: Date().addingTimeInterval(60))
        let entries = rows.map(\.entry).sorted { $0.transactionID < $1.transactionID }
        #expect(entries.map(\.transactionID) == ["t-legacy", "t-signed"])
        #expect(entries.map(\.currency) == ["USD", "EUR"] && entries.map(\.gross) == [199, 198])
        #expect(entries.map(\.estimated) == [true, false] && entries.map(\.country) == [nil, "DEU"])
        #expect(rows.allSatisfy { $0.id < 0 })
        // and the export, from its first entry, lists both
        let export = try await IAPProcess.run(
            ["export", "revenue", "--since", "2020-01-01", "--until", "2100-01-01"], environment: environment)
        #expect(export.output.contains("export: 2 entries"), "\(export.output)")
    }

    @Test func storedEvidenceHoldsApplesSignedPriceOnlyForItsOwnTransaction() throws {
        let transaction = try Self.jws([
            "transactionId": "t1", "originalTransactionId": "t1", "productId": "coins", "price": 1_250,
            "currency": "KWD", "storefront": "KWT",
        ])
        let notification = try Self.jws(["data": ["signedTransactionInfo": transaction]])
        func price(
            _ id: String, kind: String? = nil, receipt: String? = nil, store: String? = nil, notice: String? = nil
        )
            -> [String?]?
        {
            TransactionPeek.stored(
                id, receiptKind: kind, receiptPayload: receipt, notificationStore: store, notificationPayload: notice
            ).map { [$0.priceMicros.map(String.init), $0.currency, $0.storefront] }
        }
        #expect(price("t1", kind: "storekit2", receipt: transaction) == ["1250000", "KWD", "KWT"])
        #expect(price("t1", store: "apple", notice: notification) == ["1250000", "KWD", "KWT"])
        // Another transaction's, a Google token, a legacy receipt, another store's notice: none
        #expect(price("t2", kind: "storekit2", receipt: transaction) == nil)
        #expect(price("t1", kind: "google_play", receipt: transaction) == nil)
        #expect(price("t1", kind: "legacy", receipt: "MIIT") == nil)
        #expect(price("t1", store: "google", notice: notification) == nil)
    }
}
