import Foundation
import GooglePlay
import Hummingbird

extension StubGooglePlay {
    /// `GET .../applications/{package}/orders/{order}` (`orders.get`): the order of a purchase
    /// the stub holds (a one-time product's, or a subscription's latest period), priced at the
    /// configured unit price times its quantity, with 20 % of it tax as Google reports it
    /// (included in `total`). An order the stub does not hold is `404 NOT_FOUND`.
    func registerOrderRoutes(on router: Router<BasicRequestContext>) {
        // `:action`, as the refund reviews' route names the same segment (`{order}:reviewrefund`).
        let orders = "/google/androidpublisher/v3/applications/:package/orders/:action"
        router.get(RouterPath(orders)) { request, context in
            try await self.gate(request, "orders.get") {
                guard let order = self.order(context.parameters.get("action") ?? "") else {
                    return Self.error(404, "NOT_FOUND", "The order was not found.")
                }
                return Self.encoded(order)
            }
        }
    }

    func order(_ id: String) -> GooglePlayOrder? {
        let settings = configuration.withLock { $0 }
        let found: (token: String, product: String, quantity: Int, subscription: Bool)? = state.withLock { state in
            if let (token, product) = state.products.first(where: { $0.value.orderId == id }) {
                let item = product.productLineItem.first
                return (token, item?.productId ?? "", max(1, item?.productOfferDetails?.quantity ?? 1), false)
            }
            if let (token, subscription) = state.subscriptions.first(where: { _, subscription in
                subscription.latestOrderId == id || subscription.lineItems.contains { $0.latestSuccessfulOrderId == id }
            }) {
                return (token, subscription.lineItems.first?.productId ?? "", 1, true)
            }
            return nil
        }
        guard let found else { return nil }
        func money(_ micros: Int64) -> GooglePlayOrder.Money {
            GooglePlayOrder.Money(
                currencyCode: settings.orderCurrency, units: String(micros / 1_000_000),
                nanos: Int(micros % 1_000_000) * 1000)
        }
        let total = settings.orderUnitMicros * Int64(found.quantity)
        let tax = total / 6  // 20 % VAT, included
        return GooglePlayOrder(
            orderId: id, purchaseToken: found.token, total: money(total), tax: money(tax),
            buyerCountry: settings.buyerCountry,
            lineItems: [
                GooglePlayOrder.LineItem(
                    productId: found.product, total: money(total), tax: money(tax),
                    subscriptionDetails: found.subscription
                        ? GooglePlayOrder.LineItem.SubscriptionDetails(basePlanId: "monthly", offerPhase: "BASE") : nil)
            ])
    }
}
