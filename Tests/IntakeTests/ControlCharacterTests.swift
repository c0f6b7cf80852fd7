import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Intake

/// No string the API takes holds NUL or another control character (issue 25, finding 4:
/// `"a\u0000b"` was stored as `a`). Each is refused 400, naming the member, and stores
/// nothing; over a live socket, against a real SQLite file.
@Suite struct ControlCharacterTests {
    static let catalog = Catalog(products: [
        Product(productID: "com.example.coins100", kind: .consumable, grant: Grant(currency: "coins", amount: 100))
    ])
    static let jws = "eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.c2ln"

    struct Case: Sendable, CustomTestStringConvertible {
        var body: String
        var code: String
        var field: String
        var testDescription: String { "\(field): \(code)" }
    }

    /// A receipt whose one member holds `bad`; every other member is valid.
    static func receipt(_ member: String, _ bad: String) -> String {
        var members = [
            "account_id": #""p1""#, "receipt_data": #""YQ==""#, "order_id": #""o-1""#,
            "product_id": #""com.example.coins100""#,
        ]
        switch member {
        case "signed_transaction":
            members["receipt_data"] = nil
            members[member] = bad
        case let nested where nested.hasPrefix("google_play."):
            members["receipt_data"] = nil
            var play = [
                "package_name": #""com.example.game""#, "product_id": #""coins_100""#, "purchase_token": #""tok-1""#,
            ]
            play[String(nested.dropFirst("google_play.".count))] = bad
            members["google_play"] = "{" + play.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        default:
            members[member] = bad
        }
        return "{" + members.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
    }

    static let receiptCases: [Case] = [
        Case(body: receipt("product_id", #""a\u0000b""#), code: "invalid_product_id", field: "product_id"),
        Case(body: receipt("product_id", #""a\u0007b""#), code: "invalid_product_id", field: "product_id"),
        Case(body: receipt("product_id", #""a\u007fb""#), code: "invalid_product_id", field: "product_id"),
        Case(body: receipt("account_id", #""p\u0000""#), code: "invalid_account_id", field: "account_id"),
        Case(body: receipt("receipt_data", #""YQ==\u0000""#), code: "invalid_receipt_data", field: "receipt_data"),
        Case(body: receipt("order_id", #""o-1\u0000x""#), code: "invalid_order_id", field: "order_id"),
        Case(
            body: receipt("signed_transaction", #""\#(jws)\u0000""#), code: "invalid_signed_transaction",
            field: "signed_transaction"),
        Case(
            body: receipt("google_play.package_name", #""com.example.game\u0000""#), code: "invalid_google_play",
            field: "google_play.package_name"),
        Case(
            body: receipt("google_play.product_id", #""coins\u0000_100""#), code: "invalid_google_play",
            field: "google_play.product_id"),
        Case(
            body: receipt("google_play.purchase_token", #""tok\u001b[2J""#), code: "invalid_google_play",
            field: "google_play.purchase_token"),
    ]

    @Test(arguments: receiptCases)
    func aControlCharacterInAReceiptMemberIs400NamingItAndStoresNothing(_ row: Case) async throws {
        try await LiveIntake.run { intake in
            let response = try await intake.request("POST", "/v1/receipts", body: row.body)
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == row.code, "\(response?.body ?? "")")
            #expect(Self.errorField(response) == row.field)
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 10).isEmpty)
        }
    }

    @Test func theValidReceiptOfTheseCasesIsTaken() async throws {
        try await LiveIntake.run { intake in
            let response = try await intake.request("POST", "/v1/receipts", body: Self.receipt("product_id", #""x""#))
            #expect(response?.status == 202)
        }
    }

    static let orderCases: [Case] = [
        Case(
            body: #"{"account_id": "p1", "product_id": "com.example.coins100\u0000"}"#, code: "invalid_product_id",
            field: "product_id"),
        Case(
            body: #"{"account_id": "p1\u0000", "product_id": "com.example.coins100"}"#, code: "invalid_account_id",
            field: "account_id"),
        // Foundation's UUID parser reads a C string: this one passed it, NUL and all.
        Case(
            body: #"{"account_id": "p1", "product_id": "com.example.coins100", "#
                + #""app_account_token": "3f1e2d4c-0000-4000-8000-000000000001\u0000junk"}"#,
            code: "invalid_app_account_token", field: "app_account_token"),
    ]

    @Test(arguments: orderCases)
    func aControlCharacterInAnOrderMemberIs400AndMakesNoOrder(_ row: Case) async throws {
        try await LiveIntake.run(catalog: Self.catalog) { intake in
            let response = try await intake.request("POST", "/v1/orders", body: row.body)
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == row.code, "\(response?.body ?? "")")
            #expect(Self.errorField(response) == row.field)
            // The same account may still order: nothing was opened
            let order = try await intake.request(
                "POST", "/v1/orders", body: #"{"account_id": "p1", "product_id": "com.example.coins100"}"#)
            #expect(order?.status == 201)
        }
    }

    @Test(arguments: [
        (#"{"reason": "abc\u0000def"}"#, "invalid_reason", "reason"),
        (#"{"reason": "abc\ndef"}"#, "invalid_reason", "reason"),
        (#"{"reason": "abc\u0085def"}"#, "invalid_reason", "reason"),
        (#"{"account_id": "p1\u0000"}"#, "invalid_account_id", "account_id"),
    ])
    func aControlCharacterInACancelIs400AndTheOrderStaysOpen(body: String, code: String, field: String)
        async throws
    {
        try await LiveIntake.run(catalog: Self.catalog) { intake in
            let created = try await intake.request(
                "POST", "/v1/orders", body: #"{"account_id": "p1", "product_id": "com.example.coins100"}"#)
            let id = try #require(Self.member(created, "order_id"))
            let response = try await intake.request("POST", "/v1/orders/\(id)/cancel", body: body)
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == code, "\(response?.body ?? "")")
            #expect(Self.errorField(response) == field)
            #expect(Self.member(try await intake.request("GET", "/v1/orders/\(id)"), "status") == "open")
            // While a plain reason cancels it
            let cancelled = try await intake.request(
                "POST", "/v1/orders/\(id)/cancel", body: #"{"reason": "player gave up"}"#)
            #expect(Self.member(cancelled, "status") == "cancelled")
        }
    }

    @Test(arguments: [
        ("GET", "/v1/products?account_id=p1%00", 400), ("GET", "/v1/accounts/p1%00", 400),
        ("GET", "/v1/receipts/r1%00", 404), ("GET", "/v1/orders/o1%00", 404),
        ("POST", "/v1/orders/o1%00/cancel", 404),
    ])
    func aNULInAnAddressIsRefused(method: String, path: String, status: Int) async throws {
        try await LiveIntake.run { intake in
            let response = try await intake.request(method, path)
            #expect(response?.status == status)
        }
    }

    @Test func aNULInAConsentAddressIs400AndRecordsNothing() async throws {
        try await LiveIntake.run { intake in
            let response = try await intake.request(
                "PUT", "/v1/accounts/p1%00/consumption-consent", body: #"{"consented": true}"#)
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == "invalid_account_id")
        }
    }

    @Test func aControlCharacterInAnUnknownMemberIsRefusedAsUnknown() async throws {
        try await LiveIntake.run { intake in
            let body = #"{"account_id": "p1", "receipt_data": "YQ==", "note": {"deep": ["x\u0000"]}}"#
            let response = try await intake.request("POST", "/v1/receipts", body: body)
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == "unknown_field")
            #expect(Self.errorField(response) == "note")
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 10).isEmpty)
        }
    }

    @Test func aMemberIsNamedAsJSONPathsNameIt() {
        #expect(JSONFields.displayPath(["note", "deep", "[0]"]) == "note.deep[0]")
        #expect(JSONFields.displayPath(["google_play", "a\u{0}b"]) == "google_play.a\\u0000b")
        #expect(JSONFields.refusal(["signedPayload"], members: ["signedPayload"]).code == "invalid_signed_payload")
        #expect(JSONFields.refusal(["extra"], members: ["signedPayload"]).code == "invalid_json")
    }

    static func errorField(_ response: RawHTTPConnection.Response?) -> String? {
        guard let data = response?.body.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return (object["error"] as? [String: Any])?["field"] as? String
    }

    static func member(_ response: RawHTTPConnection.Response?, _ name: String) -> String? {
        guard let data = response?.body.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object[name] as? String
    }
}
