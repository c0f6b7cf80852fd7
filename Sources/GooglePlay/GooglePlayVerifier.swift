import Crypto
import Foundation
import PipelineCore
import StorePlugins

/// Verifies Google Play purchases by reading them back from the Developer API: a token is
/// worth what Google says, never what the backend sent.
///
/// One-time products are read from productsv2, subscriptions (the catalog's auto-renewable
/// products) from subscriptionsv2. A purchase becomes one ``VerifiedTransaction``: Google's
/// order id is its transaction id (unique per payment: credited once however many accounts
/// send the token), the purchase token its original transaction id, and an
/// `obfuscatedExternalAccountId` that is an order's `app_account_token` binds it as Apple's
/// `appAccountToken` does. Pending payments retry; cancelled purchases, unknown tokens and
/// another product than the one named are rejected; Google's failures and quotas retry.
public struct GooglePlayVerifier: ReceiptVerifier {
    public struct Configuration: Sendable {
        /// The apps whose purchases are accepted; empty accepts any the service account can read.
        public var packageNames: Set<String>
        /// Google product ids that are subscriptions (read from subscriptionsv2).
        public var subscriptionProductIDs: Set<String>
        /// Google product ids that are consumables: consumed once credited, not only acknowledged.
        public var consumableProductIDs: Set<String>

        public init(
            packageNames: Set<String> = [], subscriptionProductIDs: Set<String> = [],
            consumableProductIDs: Set<String> = []
        ) {
            self.packageNames = packageNames
            self.subscriptionProductIDs = subscriptionProductIDs
            self.consumableProductIDs = consumableProductIDs
        }

        /// The subscriptions and consumables of `catalog`, by their Google product ids.
        public init(packageNames: Set<String>, catalog: Catalog) {
            func ids(_ kind: Product.Kind) -> Set<String> {
                Set(catalog.products.filter { $0.kind == kind }.map(\.googleProductID))
            }
            self.init(
                packageNames: packageNames, subscriptionProductIDs: ids(.autoRenewable),
                consumableProductIDs: ids(.consumable))
        }

        /// What a credit of the one-time product `productID` owes Google.
        func productAction(for productID: String) -> GooglePlayConfirmation.Action {
            consumableProductIDs.contains(productID) ? .consume : .acknowledge
        }
    }

    public let client: GooglePlayClient
    public let configuration: Configuration

    public init(client: GooglePlayClient, configuration: Configuration) {
        self.client = client
        self.configuration = configuration
    }

    public func verify(_ submission: Submission) async -> VerificationOutcome {
        let evidence = submission.evidence.storeEvidence
        guard evidence.store == GooglePlayStore.id else {
            return .rejected(reason: "not_google_play")
        }
        if evidence.kind == StoreEvidence.notificationKind {
            // A stored notice that no longer decodes is verified as an empty one, and rejected.
            return await verify(
                GoogleNotice(canonicalJSON: evidence.payload)
                    ?? GoogleNotice(messageID: "", packageName: "", kind: .test))
        }
        // The intake stored it canonical; anything else is verified as nothing Google knows.
        let purchase =
            GooglePlayPurchase(canonicalJSON: evidence.payload)
            ?? GooglePlayPurchase(packageName: "", productID: "", purchaseToken: "")
        guard configuration.packageNames.isEmpty || configuration.packageNames.contains(purchase.packageName) else {
            return .rejected(reason: "google_play_unknown_package")
        }
        do {
            if configuration.subscriptionProductIDs.contains(purchase.productID) {
                let subscription = try await client.subscriptionPurchase(
                    packageName: purchase.packageName, token: purchase.purchaseToken)
                return await priced(outcome(subscription, purchase), packageName: purchase.packageName)
            }
            let product = try await client.productPurchase(
                packageName: purchase.packageName, token: purchase.purchaseToken)
            return await priced(outcome(product, purchase), packageName: purchase.packageName)
        } catch {
            return Self.outcome(error)
        }
    }

    /// A valid purchase with what its buyer paid, read from the Orders API (`total`: discounts
    /// and tax included; the buyer's country). The price is the revenue ledger's, never the
    /// credit's: an order Google cannot show now (not found yet, the quota, an outage) leaves
    /// the purchase unpriced, and the ledger prices it from the catalog, marked estimated.
    func priced(_ outcome: VerificationOutcome, packageName: String) async -> VerificationOutcome {
        guard case .valid(let environment, var transactions) = outcome else { return outcome }
        for index in transactions.indices where !transactions[index].transactionID.hasPrefix("GPT.") {
            guard
                let order = try? await client.order(
                    packageName: packageName, orderID: transactions[index].transactionID),
                let micros = order.total?.micros, micros >= 0, let currency = order.total?.currencyCode
            else { continue }
            transactions[index].priceMicros = micros
            transactions[index].currency = currency
            transactions[index].country = order.buyerAddress?.buyerCountry
            // "The total tax paid as a part of this order", when it is in the same currency.
            if let tax = order.tax, tax.currencyCode == currency, let taxMicros = tax.micros, taxMicros >= 0 {
                transactions[index].taxMicros = taxMicros
            }
        }
        return .valid(environment: environment, transactions: transactions)
    }

    /// A purchase read back, with what its credit owes Google (``GooglePlayConfirmation``)
    /// unless Google already has it.
    func outcome(_ product: ProductPurchaseV2, _ purchase: GooglePlayPurchase) -> VerificationOutcome {
        GooglePlayConfirmation(action: configuration.productAction(for: purchase.productID), purchase: purchase)
            .owed(by: Self.outcome(product, purchase), done: product.hasDone)
    }

    func outcome(_ subscription: SubscriptionPurchaseV2, _ purchase: GooglePlayPurchase) -> VerificationOutcome {
        GooglePlayConfirmation(action: .acknowledgeSubscription, purchase: purchase)
            .owed(by: Self.outcome(subscription, purchase)) { _, _ in subscription.isAcknowledged }
    }

    static func outcome(_ product: ProductPurchaseV2, _ purchase: GooglePlayPurchase) -> VerificationOutcome {
        if product.isPending { return .transient(reason: "google_play_pending") }
        guard product.isPurchased else {
            let state = product.purchaseStateContext?.purchaseState?.lowercased() ?? "unknown"
            return .rejected(reason: "google_play_\(state)")
        }
        guard let item = product.productLineItem.first(where: { $0.productId == purchase.productID }) else {
            return .rejected(reason: "google_play_product_mismatch")
        }
        return .valid(
            environment: product.isTest ? "Sandbox" : "Production",
            transactions: [
                VerifiedTransaction(
                    transactionID: transactionID(order: product.orderId, token: purchase.purchaseToken),
                    originalTransactionID: purchase.purchaseToken, productID: item.productId,
                    quantity: max(1, item.productOfferDetails?.quantity ?? 1),
                    purchaseDate: product.purchaseCompletionTime.flatMap(date),
                    appAccountToken: accountToken(product.obfuscatedExternalAccountId))
            ])
    }

    static func outcome(_ subscription: SubscriptionPurchaseV2, _ purchase: GooglePlayPurchase) -> VerificationOutcome {
        switch subscription.subscriptionState {
        case "SUBSCRIPTION_STATE_PENDING": return .transient(reason: "google_play_pending")
        case "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED": return .rejected(reason: "google_play_cancelled")
        default: break
        }
        // Its last paid order was credited when paid; a suspended one grants nothing more.
        if subscription.isSuspended { return .rejected(reason: "google_play_suspended") }
        guard let item = subscription.lineItems.first(where: { $0.productId == purchase.productID }) else {
            return .rejected(reason: "google_play_product_mismatch")
        }
        // The item's own order first: `latestOrderId` is deprecated, kept for older answers.
        let order = item.latestSuccessfulOrderId ?? subscription.latestOrderId
        return .valid(
            environment: "Production",
            transactions: [
                VerifiedTransaction(
                    transactionID: transactionID(order: order, token: purchase.purchaseToken),
                    originalTransactionID: purchase.purchaseToken, productID: item.productId,
                    purchaseDate: subscription.startTime.flatMap(date), expiresDate: item.expiryTime.flatMap(date),
                    appAccountToken: accountToken(subscription.externalAccountIdentifiers?.obfuscatedExternalAccountId),
                    productType: "Auto-Renewable Subscription",
                    // The token this one replaced: its access ends, its account is this one's.
                    linkedOriginalTransactionID: subscription.linkedPurchaseToken,
                    offerType: item.offerDetails?.offerId == nil ? nil : "developer_determined",
                    offerID: item.offerDetails?.offerId)
            ])
    }

    static func outcome(_ error: StoreCallError) -> VerificationOutcome {
        switch error.code {
        case .notFound: .rejected(reason: "google_play_token_not_found")
        case .invalidRequest: .rejected(reason: "google_play_invalid_request")
        case .rateLimited: .transient(reason: "google_play_rate_limited", retryAfter: error.retryAfter)
        case .unauthorized: .transient(reason: "google_play_unauthorized")
        case .unavailable: .transient(reason: "google_play_unavailable", retryAfter: error.retryAfter)
        case .malformedResponse: .transient(reason: "google_play_malformed_response")
        case .overBudget: .deferred(reason: "google_play_budget", retryAfter: error.retryAfter ?? .seconds(1))
        }
    }

    /// Google's order id; a purchase without one (a promotion code) is known by its token's digest.
    public static func transactionID(order: String?, token: String) -> String {
        if let order, !order.isEmpty { return order }
        let digest = SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
        return "GPT." + digest.prefix(40)
    }

    /// An obfuscated account id that is an order's token (a lowercase UUID) binds like Apple's.
    static func accountToken(_ id: String?) -> String? {
        guard let id = id?.lowercased(), id.count == 36, UUID(uuidString: id) != nil else { return nil }
        return id
    }

    public static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}
