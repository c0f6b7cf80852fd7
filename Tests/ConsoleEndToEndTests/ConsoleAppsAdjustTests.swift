import Console
import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// The console's grants across apps (issue 30): the form on another app's account offers
/// that app's currencies, and a post is checked against its catalog, on both backends.
extension ConsoleTests {
    /// The racing game sells gems; the harness's catalog (the default app's) sells coins.
    static let racerCatalog = Catalog(products: [
        Product(productID: "com.example.gems10", kind: .consumable, grant: Grant(currency: "gems", amount: 10))
    ])

    @Test(arguments: TestBackend.allCases) func anAppsAccountIsGrantedByItsAppsCatalog(_ backend: TestBackend)
        async throws
    {
        var desk = Self.desk
        desk.apps = AppDirectory(ids: ["puzzle", "racer"])
        desk.catalogs = AppCatalogs(PipelineHarness.catalog, others: ["racer": Self.racerCatalog])
        try await PipelineHarness.run(backend, console: desk) { pipeline in
            // Given racer's desk-player credited 10 gems, as the fulfiller would
            let receipt = NewReceipt.fixture(accountID: "racer/desk-player")
            _ = try await IntakeRepository(pipeline.database).accept([receipt], now: Date())
            _ = try await SettlementRepository(pipeline.database).apply(
                [.fixture(receipt, [("desk-gems-1", "com.example.gems10")], at: Date())], catalogs: desk.catalogs!,
                now: Date())
            #expect(try await pipeline.balance("racer/desk-player", "gems") == 10)
            let alice = try await logIn(pipeline)
            let path = "/console/accounts/racer%2Fdesk-player"

            // When alice opens its page, the form offers racer's gems, not the default app's coins
            let page = try await get(path, cookie: alice, pipeline).bodyString
            #expect(page.contains("<option value=\"gems\">") && !page.contains("<option value=\"coins\">"), "\(page)")
            let form = [
                "csrf": try csrf(in: page), "currency": "gems", "amount": "5", "reason": "outage credit",
            ]

            // Then gems are granted, and coins refused by racer's catalog, changing nothing
            let granted = try await post(
                path + "/adjust", form: form.merging(["key": UUID().uuidString]) { $1 }, cookie: alice, pipeline)
            #expect(granted.status == 303, "\(granted.bodyString)")
            let refused = try await post(
                path + "/adjust", form: form.merging(["key": UUID().uuidString, "currency": "coins"]) { $1 },
                cookie: alice, pipeline)
            #expect(refused.status == 422 && refused.bodyString.contains("no product grants the currency"))
            #expect(refused.bodyString.contains("(known: gems)"), "\(refused.bodyString)")
            #expect(refused.bodyString.contains("Nothing was changed"))
            let balances = try await LedgerRepository(pipeline.database).account(id: "racer/desk-player")?.balances
            #expect(balances == ["gems": 15])
        }
    }
}
