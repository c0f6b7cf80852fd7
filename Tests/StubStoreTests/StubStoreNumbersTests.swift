import AppStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import StubStore

/// Nothing a client sends takes the stub down (and `iap up` with it): every number the stub
/// stores take is checked before it is computed with or kept. A `quantity` past 64 bits'
/// share of Stripe's price once overflowed `POST /stripe/stub/sessions` and took the whole
/// process down. Each route that takes a number, sent extreme values over a real socket, is
/// answered 400 naming the member, and the stub answers normally afterwards.
@Suite struct StubStoreNumbersTests {
    /// What each number is sent as: 64 bits' ends and past them, negatives, doubles huge and
    /// unrepresentable (JSON without a 64-bit value), fractions, and what is no number.
    static let extremes = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "-1", "1e300", "-1e300", "1e309", "-1e309", "1.5", "true", #""7""#, "[]",
    ]

    /// A route and its body, `N` standing for the number; `member` is named in the refusal.
    struct Route: CustomStringConvertible {
        var path: String
        var body: String
        var member: String
        var description: String { "\(path) \(member)" }
    }

    /// Every route of the stubs' own that takes a number in its JSON body; `CHARGE` and
    /// `TOKEN` are a Stripe charge and a Google purchase made first.
    static let routes: [Route] = [
        Route(path: "/stripe/stub/sessions", body: #"{"lookup_key": "coins", "quantity": N}"#, member: "quantity"),
        Route(path: "/stripe/stub/sessions", body: #"{"lookup_key": "coins", "amount": N}"#, member: "amount"),
        Route(path: "/stripe/stub/charges/CHARGE/refund", body: #"{"amount": N}"#, member: "amount"),
        Route(path: "/stripe/stub/charges/CHARGE/dispute", body: #"{"amount": N}"#, member: "amount"),
        Route(
            path: "/stripe/stub/events",
            body: #"{"type": "charge.refunded", "object": "CHARGE", "secret": "whsec_n", "timestamp": N}"#,
            member: "timestamp"),
        Route(
            path: "/stub/google/purchases", body: #"{"purchase_token": "n-1", "product_id": "p", "quantity": N}"#,
            member: "quantity"),
        Route(path: "/stub/google/voided", body: #"{"purchase_token": "TOKEN", "quantity": N}"#, member: "quantity"),
        Route(
            path: "/stub/huawei/notifications",
            body: #"{"event": "ORDER", "purchase_token": "h-1", "notification_type": N}"#, member: "notification_type"),
        Route(
            path: "/stub/huawei/purchases",
            body: #"{"purchase_token": "h-2", "product_id": "p", "type": "subscription", "expiry_time": N}"#,
            member: "expiry_time"),
        Route(
            path: "/stub/receipts", body: #"{"transactions": [{"product_id": "p", "quantity": N}]}"#, member: "quantity"
        ),
        Route(path: "/stub/receipts", body: #"{"transactions": [], "fail_first": N}"#, member: "fail_first"),
        Route(
            path: "/stub/receipts", body: #"{"transactions": [], "transient_status": N}"#, member: "transient_status"),
        Route(path: "/stub/transactions/signed", body: #"{"product_id": "p", "quantity": N}"#, member: "quantity"),
        Route(
            path: "/stub/notifications/signed",
            body: #"{"notification_type": "TEST", "transaction": {"product_id": "p", "quantity": N}}"#,
            member: "quantity"),
        Route(
            path: "/stub/transactions",
            body: #"{"transaction_id": "1", "signed_transaction": "x", "subscription_status": N}"#,
            member: "subscription_status"),
    ]

    /// Runs `body` against a stub serving on a real socket, a Stripe charge and a Google
    /// purchase already made.
    func withStub(
        _ body: @escaping @Sendable (any TestClientProtocol, _ charge: String) async throws -> Void
    ) async throws {
        let store = StubAppStore()
        let charge = try #require(store.stripe.createSession(account: "p-1", lookupKey: "coins").charge)
        let app = makeStubStoreApplication(store: store, port: 0)
        try await app.test(.live) { client in
            #expect(
                try await Self.post(
                    client, "/stub/google/purchases", #"{"purchase_token": "TOKEN", "product_id": "p"}"#
                ).status == 201)
            try await body(client, charge)
        }
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ body: String) async throws
        -> (status: Int, body: String)
    {
        try await client.execute(
            uri: path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)
        ) { (Int($0.status.code), String(buffer: $0.body)) }
    }

    @Test func everyNumberARouteTakesIsRefused400AtItsExtremesAndTheStubKeepsServing() async throws {
        try await withStub { client, charge in
            for route in Self.routes {
                for number in Self.extremes {
                    // When a route is sent an extreme value
                    let path = route.path.replacingOccurrences(of: "CHARGE", with: charge)
                    let body = route.body.replacingOccurrences(of: "CHARGE", with: charge)
                        .replacingOccurrences(of: ": N", with: ": \(number)")
                    let answer = try await Self.post(client, path, body)

                    // Then it is refused 400, naming the member (or the body, when it is no JSON)
                    #expect(answer.status == 400, "\(route) = \(number): \(answer.status) \(answer.body)")
                    let named = answer.body.contains(route.member) || answer.body.lowercased().contains("json")
                    #expect(named, "\(route) = \(number): \(answer.body)")
                }
            }
            // And the stub answers as before, on every store's routes
            try await Self.expectServing(client, charge: charge)
        }
    }

    @Test func aStripeSessionWhoseTotalPassesStripesMostIsRefused() async throws {
        try await withStub { client, charge in
            // Each number fits alone; their product does not fit Stripe's most for a payment
            let answer = try await Self.post(
                client, "/stripe/stub/sessions", #"{"lookup_key": "coins", "quantity": 1000000, "amount": 99999999}"#)
            #expect(answer.status == 400 && answer.body.contains("invalid_amount"), "\(answer.body)")
            try await Self.expectServing(client, charge: charge)
        }
    }

    @Test func timesPastTheYear9999AreRefused() async throws {
        try await withStub { client, charge in
            let late = "99999999-01-01T00:00:00Z"
            let purchase = try await Self.post(
                client, "/stub/google/purchases",
                #"{"purchase_token": "n-2", "product_id": "p", "kind": "subscription", "expiry_time": "\#(late)"}"#)
            #expect(purchase.status == 400 && purchase.body.contains("expiry_time"), "\(purchase.body)")
            let renewal = try await Self.post(
                client, "/stub/google/renewals",
                #"{"purchase_token": "TOKEN", "order_id": "GPA.1", "expiry_time": "\#(late)"}"#)
            #expect(renewal.status == 400 && renewal.body.contains("expiry_time"), "\(renewal.body)")
            try await Self.expectServing(client, charge: charge)
        }
    }

    @Test func theVoidedListsPagingNumbersAreRefused() async throws {
        let store = StubAppStore()
        // An access token as the token endpoint would have issued it
        store.googlePlay.state.withLock { $0.accessTokens["ya29.n"] = (.distantFuture, store.googlePlay.clientEmail) }
        let app = makeStubStoreApplication(store: store, port: 0)
        try await app.test(.live) { client in
            let list = "/google/androidpublisher/v3/applications/p/purchases/voidedpurchases?startTime=0&endTime=1"
            for query in [
                "&token=-1", "&token=-9223372036854775808", "&token=9223372036854775808", "&token=1.5",
                "&maxResults=-1", "&maxResults=0", "&maxResults=1001", "&maxResults=9223372036854775807",
            ] {
                let status = try await client.execute(
                    uri: list + query, method: .get, headers: [.authorization: "Bearer ya29.n"]
                ) { Int($0.status.code) }
                #expect(status == 400, "\(query)")
            }
            // A token past the end is an empty page, not a trap
            let past = try await client.execute(
                uri: list + "&token=9223372036854775807", method: .get, headers: [.authorization: "Bearer ya29.n"]
            ) { Int($0.status.code) }
            #expect(past == 200)
        }
    }

    @Test func theServerAPIsNumbersAtTheirExtremesAreAnswered400() throws {
        let api = StubAppStore().serverAPI
        // Get Notification History's window, as the route decodes it
        for number in Self.extremes {
            for body in [#"{"startDate": N, "endDate": 1}"#, #"{"startDate": 1, "endDate": N}"#] {
                let json = Data(body.replacingOccurrences(of: "N", with: number).utf8)
                let request = try? JSONDecoder().decode(NotificationHistoryRequest.self, from: json)
                guard case .error(400, _, _) = api.notificationHistory(request, paginationToken: nil, at: .production)
                else {
                    Issue.record("\(body) with \(number) was not refused 400")
                    continue
                }
            }
        }
        // Paging revisions that name no page
        for revision in ["stub--1", "stub-9223372036854775807", "stub-9223372036854775808", "stub-1e309"] {
            #expect(api.page(of: ["a", "b"], after: revision) == nil, "\(revision)")
        }
    }

    @Test func aRefundOfInt64MaxAfterAPartialOneIsRefusedNotOverflowed() {
        // The model once added the refund to what was refunded before comparing
        let stripe = StubStripe()
        let charge = stripe.createSession(account: "p", lookupKey: "coins", amount: 1000).charge!
        #expect(stripe.refund(charge: charge, amount: 100))
        #expect(!stripe.refund(charge: charge, amount: Int.max))
        #expect(stripe.refund(charge: charge))
    }

    /// Each store's routes still answer: a session, a purchase of each, a receipt.
    static func expectServing(_ client: any TestClientProtocol, charge: String) async throws {
        let checks: [(String, String, Int)] = [
            ("/stripe/stub/sessions", #"{"lookup_key": "coins", "quantity": 2, "amount": 499}"#, 200),
            ("/stripe/stub/charges/\(charge)/refund", #"{"amount": 1}"#, 200),
            ("/stub/google/purchases", #"{"purchase_token": "after", "product_id": "p", "quantity": 3}"#, 201),
            ("/stub/google/voided", #"{"purchase_token": "after", "quantity": 1}"#, 200),
            ("/stub/huawei/purchases", #"{"purchase_token": "after", "product_id": "p", "type": "consumable"}"#, 201),
            ("/stub/receipts", #"{"transactions": [{"product_id": "p", "quantity": 2}]}"#, 200),
            ("/stub/transactions/signed", #"{"product_id": "p", "quantity": 2}"#, 200),
        ]
        for (path, body, status) in checks {
            let answer = try await post(client, path, body)
            #expect(answer.status == status, "\(path): \(answer.body)")
        }
    }
}
