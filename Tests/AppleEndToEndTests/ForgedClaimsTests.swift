import Foundation
import PipelineCore
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// What a client says is never what is credited: Apple's answer is. Each row forges one claim
/// (product, quantity, price tier, environment, bundle, account, transaction id) in a real
/// `POST /v1/receipts`, through the intake, the queue, a validator asking the stub store and
/// the fulfiller. A claim the API has no field for is refused at the door (`400
/// unknown_field`, nothing stored); the receipt sent without it then gets what Apple said.
@Suite struct ForgedClaimsTests {
    /// The harness's products, plus a price tier: two products sold through one Apple id.
    static let catalog = Catalog(
        products: PipelineHarness.catalog.products + [
            Product(
                productID: "starter_pack", kind: .consumable, appleProductID: "com.example.tier5",
                grant: Grant(currency: "gems", amount: 60), tierDefault: true),
            Product(
                productID: "holiday_pack", kind: .consumable, appleProductID: "com.example.tier5",
                grant: Grant(currency: "coins", amount: 900)),
        ])

    /// What Apple vouches for in a row.
    enum AppleSays: Sendable {
        /// A legacy receipt of `bundle`, in `environment`, with these transactions (id, product, quantity).
        case receipt(bundle: String, environment: StubReceipt.Environment, [(String, String, Int)])
        /// A StoreKit 2 transaction bought with the `appAccountToken` of an order `owner` made first.
        case signedTransaction(product: String, tokenOf: String)
    }

    struct Row: Sendable, CustomStringConvertible {
        /// The claim the client forges, in words.
        var claim: String
        /// The forged body fields, beside the submitting account and the receipt.
        var forged: [String: String]
        /// Whether the intake refuses the claim at the door (the API has no such field).
        var refused: Bool
        var submitter: String
        var apple: AppleSays
        /// A transaction Apple already vouched for, credited to this account first.
        var creditedBefore: (account: String, transactionID: String)?
        /// The receipt's final status and reason, and the transactions' outcomes.
        var status: String
        var reason: String?
        var outcomes: [String]
        /// What each account holds afterwards.
        var balances: [String: [String: Int]]
        var environment: String?

        var description: String { claim }
    }

    static let rows: [Row] = [
        Row(
            claim: "product: the body names the 500-coin pack", forged: ["product_id": "com.example.coins500"],
            refused: false, submitter: "p-player",
            apple: .receipt(
                bundle: PipelineHarness.bundleID, environment: .production, [("p-1", "com.example.coins100", 1)]),
            status: "credited", outcomes: ["credited"], balances: ["p-player": ["coins": 100]]),
        Row(
            claim: "quantity: the body says 10", forged: ["quantity": "10"], refused: true, submitter: "q-player",
            apple: .receipt(
                bundle: PipelineHarness.bundleID, environment: .production, [("q-1", "com.example.coins100", 3)]),
            status: "credited", outcomes: ["credited"], balances: ["q-player": ["coins": 300]]),
        Row(
            claim: "price tier: the body names the 900-coin holiday pack", forged: ["product_id": "holiday_pack"],
            refused: false, submitter: "t-player",
            apple: .receipt(
                bundle: PipelineHarness.bundleID, environment: .production, [("t-1", "com.example.tier5", 1)]),
            status: "credited", outcomes: ["credited"], balances: ["t-player": ["gems": 60, "coins": 0]]),
        Row(
            claim: "environment: the body says Production", forged: ["environment": "Production"], refused: true,
            submitter: "e-player",
            apple: .receipt(
                bundle: PipelineHarness.bundleID, environment: .sandbox, [("e-1", "com.example.coins100", 1)]),
            status: "credited", outcomes: ["credited"], balances: ["e-player": ["coins": 100]], environment: "Sandbox"),
        Row(
            claim: "bundle: the body says this app", forged: ["bundle_id": PipelineHarness.bundleID], refused: true,
            submitter: "b-player",
            apple: .receipt(bundle: "com.other.app", environment: .production, [("b-1", "com.example.coins500", 1)]),
            status: "rejected", reason: "bundle_mismatch", outcomes: [], balances: ["b-player": ["coins": 0]]),
        Row(
            claim: "account: mallory submits alice's purchase as hers", forged: [:], refused: false,
            submitter: "a-mallory", apple: .signedTransaction(product: "com.example.coins500", tokenOf: "a-alice"),
            status: "credited", outcomes: ["credited"],
            balances: ["a-alice": ["coins": 500], "a-mallory": ["coins": 0]]),
        Row(
            claim: "transaction id: the body names a fresh one", forged: ["transaction_id": "x-fresh-1"],
            refused: true, submitter: "x-mallory",
            apple: .receipt(
                bundle: PipelineHarness.bundleID, environment: .production, [("x-1", "com.example.coins500", 1)]),
            creditedBefore: (account: "x-alice", transactionID: "x-1"),
            // A receipt that credited nothing ends rejected, its transaction's outcome saying why.
            status: "rejected", outcomes: ["already_credited"],
            balances: ["x-alice": ["coins": 500], "x-mallory": ["coins": 0]]),
    ]

    @Test(arguments: TestBackend.allCases) func eachForgedClaimIsIgnoredInFavourOfApplesAnswer(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, catalog: Self.catalog) { pipeline in
            for row in Self.rows { try await check(row, pipeline) }
        }
    }

    func check(_ row: Row, _ pipeline: PipelineHarness) async throws {
        let comment = Comment(rawValue: row.claim)
        // Given what Apple vouches for (and, for a replay, its first credit)
        if let before = row.creditedBefore, case .receipt(let bundle, let environment, let transactions) = row.apple {
            // (minted earlier: another receipt, with the same Apple transaction)
            let first = issue(
                pipeline, bundle, environment, transactions.filter { $0.0 == before.transactionID },
                createdAt: Date(timeIntervalSince1970: 1_600_000_000))
            let (_, id) = try await pipeline.post(
                "/v1/receipts", ["account_id": before.account, "receipt_data": first])
            let status = try await pipeline.finalStatus(try #require(id["receipt_id"] as? String, comment))
            #expect(status["status"] as? String == "credited", comment)
        }
        var body = ["account_id": row.submitter]
        switch row.apple {
        case .receipt(let bundle, let environment, let transactions):
            body["receipt_data"] = issue(pipeline, bundle, environment, transactions)
        case .signedTransaction(let product, let owner):
            let (_, order) = try await pipeline.post("/v1/orders", ["account_id": owner, "product_id": product])
            let token = try #require(order["app_account_token"] as? String, comment)
            body["signed_transaction"] = pipeline.stub.storeKit.signTransaction(
                StubTransaction(productID: product, appAccountToken: token))
        }

        // When the client forges its claim
        let (status, answer) = try await pipeline.post("/v1/receipts", body.merging(row.forged) { _, forged in forged })
        var receiptID = answer["receipt_id"] as? String
        if row.refused {
            // Then a claim the API has no field for is refused, naming it, and nothing is stored
            #expect(status == 400, comment)
            let error = answer["error"] as? [String: Any]
            #expect(error?["code"] as? String == "unknown_field", comment)
            #expect(error?["field"] as? String == row.forged.keys.first, comment)
            #expect(receiptID == nil, comment)
            // and the receipt without it gets what Apple says
            let (retried, again) = try await pipeline.post("/v1/receipts", body)
            #expect(retried == 202, comment)
            receiptID = again["receipt_id"] as? String
        } else {
            #expect(status == 202, comment)
        }

        // Then what is credited is what Apple said
        let final = try await pipeline.finalStatus(try #require(receiptID, comment))
        #expect(final["status"] as? String == row.status, comment)
        if let reason = row.reason { #expect(final["reason"] as? String == reason, comment) }
        if let environment = row.environment { #expect(final["environment"] as? String == environment, comment) }
        let transactions = final["transactions"] as? [[String: Any]] ?? []
        #expect(transactions.compactMap { $0["outcome"] as? String } == row.outcomes, comment)
        for (account, balances) in row.balances {
            for (currency, amount) in balances {
                #expect(try await pipeline.balance(account, currency) == amount, "\(row.claim): \(account) \(currency)")
            }
        }
    }

    func issue(
        _ pipeline: PipelineHarness, _ bundle: String, _ environment: StubReceipt.Environment,
        _ transactions: [(String, String, Int)], createdAt: Date = Date(timeIntervalSince1970: 1_700_000_000)
    ) -> String {
        pipeline.stub.issue(
            StubReceipt(
                bundleID: bundle, environment: environment,
                transactions: transactions.map { .init(transactionID: $0.0, productID: $0.1, quantity: $0.2) },
                createdAt: createdAt))
    }
}
