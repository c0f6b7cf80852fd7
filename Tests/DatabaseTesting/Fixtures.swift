import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter

/// Data the tests share: a pinned clock, a catalog, and builders for receipts and verdicts.
enum Fixture {
    /// 2025-06-15 15:06:40 UTC; whole seconds, so dates survive the database unchanged.
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static let coins = "com.example.coins100"
    static let gems = "com.example.gems10"
    static let vip = "com.example.vip.monthly"
    static let noAds = "com.example.noads"

    static let catalog = Catalog(products: [
        Product(productID: coins, kind: .consumable, grant: Grant(currency: "coins", amount: 100)),
        Product(productID: gems, kind: .consumable, grant: Grant(currency: "gems", amount: 10)),
        Product(productID: vip, kind: .autoRenewable, entitlement: "vip"),
        Product(productID: noAds, kind: .nonConsumable, entitlement: "noads"),
    ])

    /// A stand-in for the caller's SHA-256: 64 lower-case hex digits, deterministic, and
    /// different for different texts (four seeded FNV-1a hashes).
    static func hash(_ text: String) -> String {
        (0..<4).map { seed -> String in
            var value: UInt64 = 0xcbf2_9ce4_8422_2325 &+ UInt64(seed) &* 0x9E37_79B9_7F4A_7C15
            for byte in text.utf8 {
                value ^= UInt64(byte)
                value = value &* 0x0000_0100_0000_01B3
            }
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// A receipt as the intake would hand it over. The request body is the payload unless given.
    static func receipt(
        _ id: String, account: String, payload: String? = nil, kind: ReceiptKind = .legacy,
        idempotencyKey: String? = nil, body: String? = nil, productID: String? = nil, orderID: String? = nil
    ) -> NewReceipt {
        let payload = payload ?? "payload-of-\(id)"
        return NewReceipt(
            id: id, accountID: account, kind: kind, payload: payload, payloadHash: hash(kind.rawValue + payload),
            orderID: orderID, productID: productID, idempotencyKey: idempotencyKey, requestHash: hash(body ?? payload))
    }

    static func purchase(
        _ transactionID: String, product: String = coins, quantity: Int = 1, expires: Date? = nil,
        cancelled: Date? = nil, original: String? = nil, token: String? = nil
    ) -> VerifiedTransaction {
        VerifiedTransaction(
            transactionID: transactionID, originalTransactionID: original ?? transactionID, productID: product,
            quantity: quantity, purchaseDate: t0, expiresDate: expires, cancellationDate: cancelled,
            appAccountToken: token)
    }

    static func valid(
        _ receiptID: String, account: String, _ transactions: [VerifiedTransaction], attempts: Int = 1
    ) -> Verdict {
        Verdict(
            outcome: .valid, receiptID: receiptID, accountID: account, attempts: attempts, environment: "Sandbox",
            transactions: transactions, decidedAt: t0)
    }

    static func verdict(
        _ outcome: Verdict.Outcome, _ receiptID: String, account: String, reason: String?, attempts: Int
    ) -> Verdict {
        Verdict(
            outcome: outcome, receiptID: receiptID, accountID: account, reason: reason, attempts: attempts,
            decidedAt: t0)
    }

    /// A verdict about an App Store Server Notification, as the validator sends it: valid,
    /// no account, the notification's row id as `receiptID`.
    static func notified(
        _ notificationID: String, _ type: String, uuid: String, subtype: String? = nil,
        _ transaction: VerifiedTransaction?, grace: Date? = nil, account: String = ""
    ) -> Verdict {
        Verdict(
            outcome: .valid, receiptID: notificationID, accountID: account, attempts: 1, environment: "Sandbox",
            notification: StoreNotification(
                notificationUUID: uuid, type: type, subtype: subtype, environment: "Sandbox", signedDate: t0,
                transaction: transaction, gracePeriodExpiresDate: grace),
            decidedAt: t0)
    }

    /// The `data` of a webhook, which must exist.
    static func data(_ notification: OutboxWebhook?) throws -> [String: Any] {
        guard let notification else { throw FixtureError("no such webhook") }
        guard let data = try json(notification.body)["data"] as? [String: Any] else {
            throw FixtureError("webhook without data: \(notification.body)")
        }
        return data
    }

    /// Decodes a webhook body into plain JSON values.
    static func json(_ body: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(body.utf8))
        guard let dictionary = object as? [String: Any] else { throw FixtureError("body is not a JSON object") }
        return dictionary
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension SQLDatabase {
    /// Accepts receipts that must all be new.
    func acceptNew(_ receipts: [NewReceipt], now: Date = Fixture.t0) async throws {
        let outcomes = try await IntakeRepository(self).accept(receipts, now: now)
        for (receipt, outcome) in zip(receipts, outcomes) {
            guard case .created = outcome else { throw FixtureError("\(receipt.id) was not created: \(outcome)") }
        }
    }
}

extension SQLDatabase {
    /// Accepts notifications (their payload made from the id unless given) that must all be new.
    func acceptNewNotifications(
        _ ids: [String], payloads: [String]? = nil, now: Date = Fixture.t0, app: String = ""
    ) async throws {
        for (index, id) in ids.enumerated() {
            let payload = payloads?[index] ?? "signed-payload-of-\(id)"
            let accepted = try await NotificationRepository(self).acceptNotification(
                id: id, app: app, payload: payload, payloadHash: Fixture.hash(payload), now: now)
            guard accepted == (id, true) else { throw FixtureError("\(id) was not created: \(accepted)") }
        }
    }
}

extension SQLDatabase {
    /// The webhooks written so far (due or not), oldest first.
    func allWebhooks() async throws -> [OutboxWebhook] {
        try await OutboxRepository(self).dueWebhooks(now: .distantFuture, limit: 10_000)
    }
}
