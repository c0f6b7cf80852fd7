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
        // Untyped, as the acknowledger's own call was: with the typed catch, runs of the
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
            guard error.isRetryable || error.code == .unauthorized else { return .failed(reason: error.description) }
            return .transient(reason: error.description, retryAfter: error.retryAfter)
        } catch {
            return .transient(reason: "\(error)")
        }
    }
}
