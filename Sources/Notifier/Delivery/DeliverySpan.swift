import Database
import Foundation
import HTTPClient
import Observability
import PipelineCore
import Repositories
import SettlementWriter
import Tracing

/// One webhook delivery attempt as an HTTP client span (OpenTelemetry's HTTP conventions),
/// continuing the span that wrote the webhook (the fulfiller's settlement), its context
/// sent in the request's `traceparent` header. Nil when tracing is off.
struct DeliverySpan {
    let span: any Span

    static func start(
        _ notification: OutboxWebhook, url: String, attempt: Int, request: inout HTTPRequest, enabled: Bool
    ) -> DeliverySpan? {
        guard enabled else { return nil }
        let span = startSpan(SpanName.webhook, context: TraceParent.context(notification.traceparent), ofKind: .client)
        span.attributes["http.request.method"] = "POST"
        span.attributes["url.full"] = Self.withoutCredentials(url)
        if let components = URLComponents(string: url) {
            span.attributes["server.address"] = components.host
            span.attributes["server.port"] = components.port ?? (components.scheme == "https" ? 443 : 80)
        }
        // The semantic conventions count resends from 0 on the first retry.
        if attempt > 1 { span.attributes["http.request.resend_count"] = attempt - 1 }
        span.attributes["iap.webhook.id"] = notification.id
        span.attributes["iap.webhook.type"] = notification.type.rawValue
        span.attributes["iap.webhook.attempt"] = attempt
        if let receiptID = notification.receiptID { span.attributes["iap.receipt.id"] = receiptID }
        if let traceparent = TraceParent.string(of: span.context) {
            request.headers.append((name: TraceParent.header, value: traceparent))
        }
        return DeliverySpan(span: span)
    }

    /// The receiver's answer, or why there was none.
    func answered(_ answer: Result<HTTPResponse, HTTPClientError>) {
        switch answer {
        case .success(let response):
            span.attributes["http.response.status_code"] = response.status
            if !response.isSuccess {
                span.attributes["error.type"] = "\(response.status)"
                span.setStatus(.init(code: .error))
            }
        case .failure(let error):
            span.attributes["error.type"] = "\(error.code)"
            span.setStatus(.init(code: .error, message: error.description))
        }
    }

    /// What comes next: delivered, another attempt at `nextAttemptAt`, or given up.
    func end(_ outcome: DeliveryOutcome) {
        switch outcome {
        case .delivered: span.attributes["iap.webhook.outcome"] = "delivered"
        case .retrying(let next):
            span.attributes["iap.webhook.outcome"] = "retrying"
            span.attributes["iap.webhook.next_attempt_at"] = Timestamp.format(next)
        case .failed: span.attributes["iap.webhook.outcome"] = "failed"
        case .abandoned: span.attributes["iap.webhook.outcome"] = "abandoned"
        }
        span.end()
    }

    /// The URL as a span may show it: no user or password.
    static func withoutCredentials(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.user != nil || components.password != nil else {
            return url
        }
        components.user = "REDACTED"
        components.password = "REDACTED"
        return components.string ?? url
    }
}
