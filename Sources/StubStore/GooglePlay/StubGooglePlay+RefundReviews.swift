import Foundation
import GooglePlay
import Hummingbird

/// Google's collaborative chargeback review: the stub opens a review of an order (the
/// pending refund review notification Pub/Sub would push) and takes its answer at
/// `POST .../orders/{order}:reviewrefund`, checked as Google documents the body.
extension StubGooglePlay {
    /// An `orders.reviewrefund` the stub accepted.
    public struct RefundReviewAnswer: Sendable, Hashable {
        public var packageName: String
        public var orderID: String
        public var answer: RefundReviewRequest

        public init(packageName: String, orderID: String, answer: RefundReviewRequest) {
            self.packageName = packageName
            self.orderID = orderID
            self.answer = answer
        }
    }

    /// Opens a pending refund review of `order`: the `DeveloperNotification` member
    /// (`pendingRefundReviewNotification`) Google would push, with a fresh token.
    public func openRefundReview(order: String, token: String = "prr-" + UUID().uuidString) -> [String: Any] {
        state.withLock { $0.refundReviews[token] = order }
        return ["version": "1.0", "orderId": order, "pendingRefundToken": token]
    }

    /// `POST .../applications/{package}/orders/{order}:reviewrefund`, Google's; and the stub's
    /// own `POST /stub/google/refund-reviews` (`{"order_id"}`: opens a review, answering `201`
    /// with the `pendingRefundReviewNotification` to push) and `GET /stub/google/refund-reviews`
    /// (the answers taken, `[{"package_name", "order_id", "answer"}]`).
    func registerRefundReviewRoutes(on router: Router<BasicRequestContext>) {
        router.post(RouterPath("/google/androidpublisher/v3/applications/:package/orders/:action")) {
            request, context in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return try await self.gate(request, "orders.reviewrefund") {
                self.reviewRefund(
                    package: context.parameters.get("package") ?? "", action: context.parameters.get("action") ?? "",
                    body: Data(buffer: body))
            }
        }
        router.post("/stub/google/refund-reviews") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            guard let fields = try? JSONDecoder().decode([String: String].self, from: Data(buffer: body)),
                let order = fields["order_id"], !order.isEmpty
            else { return Self.error(400, "INVALID_ARGUMENT", "expected {\"order_id\"}") }
            return Self.json(["pendingRefundReviewNotification": self.openRefundReview(order: order)], status: 201)
        }
        router.get("/stub/google/refund-reviews") { _, _ in
            let answers = self.stats.refundReviewAnswers.map { answer -> [String: Any] in
                let body = (try? JSONSerialization.jsonObject(with: Data(answer.answer.json.utf8))) ?? [:]
                return ["package_name": answer.packageName, "order_id": answer.orderID, "answer": body]
            }
            let data = (try? JSONSerialization.data(withJSONObject: answers, options: .sortedKeys)) ?? Data("[]".utf8)
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    /// `{order}:reviewrefund`: the token must be one the stub opened for that order, the
    /// preference Google's, the share 0 to 100,000; an answered review takes no second one.
    func reviewRefund(package: String, action: String, body: Data) -> Response {
        guard action.hasSuffix(":reviewrefund") else { return Self.error(404, "NOT_FOUND", "Unknown method.") }
        let order = String(action.dropLast(":reviewrefund".count))
        guard let answer = try? JSONDecoder().decode(RefundReviewRequest.self, from: body),
            ["APPROVE", "DECLINE", "NEUTRAL"].contains(answer.refundPreference),
            (0...100_000).contains(answer.consumptionPercentageMilliunits ?? 0)
        else {
            return Self.error(
                400, "INVALID_ARGUMENT", "pendingRefundToken, sampleContentProvided and refundPreference are required.")
        }
        return state.withLock { state -> Response in
            guard state.refundReviews[answer.pendingRefundToken] == order else {
                return Self.error(400, "INVALID_ARGUMENT", "The pending refund token does not name this order.")
            }
            guard
                !state.stats.refundReviewAnswers.contains(where: {
                    $0.answer.pendingRefundToken == answer.pendingRefundToken
                })
            else { return Self.error(400, "FAILED_PRECONDITION", "The refund review was already answered.") }
            state.stats.refundReviewAnswers.append(
                RefundReviewAnswer(packageName: package, orderID: order, answer: answer))
            return Self.encoded([String: String]())
        }
    }
}
