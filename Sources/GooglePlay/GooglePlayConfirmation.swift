import Foundation
import PipelineCore
import StorePlugins

/// What a credited Play purchase owes Google: its acknowledgement, or its consumption (a
/// consumable, so that it can be bought again); Google refunds a purchase left
/// unacknowledged for three days. Kept as JSON, as every plug-in store's confirmation is
/// (``GooglePlayStore/confirm(_:context:)``).
public struct GooglePlayConfirmation: Codable, Hashable, Sendable {
    public enum Action: String, Codable, Hashable, Sendable {
        case consume
        case acknowledge
        case acknowledgeSubscription = "acknowledge_subscription"
    }

    public var action: Action
    public var purchase: GooglePlayPurchase

    public init(action: Action, purchase: GooglePlayPurchase) {
        self.action = action
        self.purchase = purchase
    }

    /// The confirmation `json` holds; nil for anything else.
    public init?(json: String) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: Data(json.utf8)) else { return nil }
        self = decoded
    }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

extension GooglePlayStore {
    /// Tells Google of a credit (``GooglePlayConfirmation``) with the service account; a
    /// validator's settings without one leave it owed.
    public func confirm(_ confirmation: String, context: StoreContext) async -> ConfirmationOutcome {
        guard let owed = GooglePlayConfirmation(json: confirmation) else {
            return .failed(reason: "google_play_confirmation_unreadable")
        }
        guard let setup else { return .transient(reason: Self.notConfigured) }
        return await Self.confirm(owed, client: setup.client(httpClient: context.httpClient, budgets: context.budgets))
    }

    /// The same, over `client`. Google's failures, its quotas and credentials an operator
    /// can fix are tried again; a refusal (a token Google does not know, a bad request) is
    /// final. The reason is the failure as logs show it.
    public static func confirm(_ owed: GooglePlayConfirmation, client: GooglePlayClient) async -> ConfirmationOutcome {
        let purchase = owed.purchase
        // Untyped, as the former acknowledger's call was: with the typed catch, runs of the
        // acknowledging tests aborted (signal 6, no message) about one in three; not understood.
        do throws(any Error) {
            switch owed.action {
            case .consume:
                try await client.consumeProduct(
                    packageName: purchase.packageName, productID: purchase.productID, token: purchase.purchaseToken)
            case .acknowledge:
                try await client.acknowledgeProduct(
                    packageName: purchase.packageName, productID: purchase.productID, token: purchase.purchaseToken)
            case .acknowledgeSubscription:
                try await client.acknowledgeSubscription(
                    packageName: purchase.packageName, subscriptionID: purchase.productID, token: purchase.purchaseToken
                )
            }
            return .done
        } catch let error as StoreCallError {
            // Google refuses to acknowledge or consume twice: a purchase it already has (an
            // earlier attempt whose answer was lost, the app's own call) is done, not refused.
            if error.code == .invalidRequest, await hasDone(owed, client: client) { return .done }
            guard error.isRetryable || error.code == .unauthorized else { return .failed(reason: error.description) }
            return .transient(reason: error.description, retryAfter: error.retryAfter)
        } catch {
            return .transient(reason: "\(error)")
        }
    }

    /// Whether Google's own record of the purchase shows `owed` done; false when it cannot be read.
    static func hasDone(_ owed: GooglePlayConfirmation, client: GooglePlayClient) async -> Bool {
        let purchase = owed.purchase
        do throws(any Error) {
            if owed.action == .acknowledgeSubscription {
                return try await client.subscriptionPurchase(
                    packageName: purchase.packageName, token: purchase.purchaseToken
                ).isAcknowledged
            }
            return try await client.productPurchase(packageName: purchase.packageName, token: purchase.purchaseToken)
                .hasDone(owed.action, purchase.productID)
        } catch {
            return false
        }
    }
}

extension GooglePlayConfirmation {
    /// `outcome` with this confirmation on its transactions, unless Google already has it
    /// (`done`: a purchase acknowledged or consumed, by the app or an earlier credit), so
    /// that nothing is owed twice for one purchase token.
    func owed(by outcome: VerificationOutcome, done: (Action, String) -> Bool) -> VerificationOutcome {
        guard case .valid(let environment, var transactions) = outcome, !done(action, purchase.productID) else {
            return outcome
        }
        for index in transactions.indices { transactions[index].confirmation = json }
        return .valid(environment: environment, transactions: transactions)
    }
}

extension ProductPurchaseV2 {
    /// Whether Google already has what `action` would tell it of `productID`: consumed, or
    /// (for an acknowledgement) acknowledged or consumed.
    public func hasDone(_ action: GooglePlayConfirmation.Action, _ productID: String) -> Bool {
        let consumed = productLineItem.contains { $0.productId == productID && $0.isConsumed }
        return action == .consume ? consumed : consumed || isAcknowledged
    }
}
