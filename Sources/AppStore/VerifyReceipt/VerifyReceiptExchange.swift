import Foundation
import HTTPClient
import PipelineCore

/// The pure part of asking `verifyReceipt` once: what an HTTP answer, or the failure to get
/// one, means. No I/O, so every case is testable with values.
public enum VerifyReceiptExchange {
    /// What to do after one request.
    public enum Step: Hashable, Sendable {
        /// Done: the verdict.
        case outcome(VerificationOutcome)
        /// Ask the other endpoint with the same receipt (Apple's `21007` / `21008`).
        case redirect(to: VerifyReceiptEnvironment, status: VerifyReceiptStatus)
    }

    /// Classifies the answer of `endpoint`.
    ///
    /// - `200` with a JSON body: by its status (see ``VerifyReceiptStatus/action(isRetryable:)``);
    ///   status `0` must carry a receipt for `bundleID` (else `bundle_mismatch`).
    /// - `200` with a body that is not a `verifyReceipt` answer: transient `invalid_response_body`.
    /// - `429` and `5xx`: transient `http_429`, `http_503`, ..., with `Retry-After` as the hint.
    /// - Any other status (Apple answers none): transient `http_404` and so on. Such an answer is
    ///   the endpoint's fault (a wrong URL, a proxy), not the receipt's, so the receipt waits in
    ///   the retry queue and then the dead-letter queue, where an operator can replay it.
    /// - Parameters:
    ///   - response: The HTTP answer.
    ///   - endpoint: Which endpoint answered.
    ///   - bundleID: The app's bundle id.
    ///   - otherApps: The pipeline's other apps: a receipt of one of theirs is `app_mismatch`, naming it.
    ///   - now: The clock, for a `Retry-After` given as a date.
    public static func classify(
        _ response: HTTPResponse, from endpoint: VerifyReceiptEnvironment, bundleID: String,
        otherApps: OtherApps = .none, now: Date = Date()
    ) -> Step {
        guard response.status == 200 else {
            let retryAfter = response.header("Retry-After").flatMap { retryAfterDuration($0, now: now) }
            return .outcome(.transient(reason: "http_\(response.status)", retryAfter: retryAfter))
        }
        guard let body = VerifyReceiptResponse.decode(response.body, orWith: JSONDecoder()) else {
            return .outcome(.transient(reason: "invalid_response_body"))
        }
        return classify(body, from: endpoint, bundleID: bundleID, otherApps: otherApps)
    }

    /// Classifies a decoded `verifyReceipt` answer of `endpoint`.
    /// - Parameters:
    ///   - body: The answer.
    ///   - endpoint: Which endpoint answered.
    ///   - bundleID: The app's bundle id; a valid receipt of another app is `bundle_mismatch`.
    ///   - otherApps: The pipeline's other apps: a receipt of one of theirs is `app_mismatch`, naming it.
    public static func classify(
        _ body: VerifyReceiptResponse, from endpoint: VerifyReceiptEnvironment, bundleID: String,
        otherApps: OtherApps = .none
    ) -> Step {
        switch body.status.action(isRetryable: body.isRetryable) {
        case .trySandbox:
            return .redirect(to: .sandbox, status: body.status)
        case .tryProduction:
            return .redirect(to: .production, status: body.status)
        case .rejected(let reason):
            return .outcome(.rejected(reason: reason))
        case .transient(let reason):
            return .outcome(.transient(reason: reason))
        case .valid:
            guard let receipt = body.receipt else {
                return .outcome(.transient(reason: "invalid_response_body"))
            }
            guard receipt.bundleID == bundleID else {
                return .outcome(.rejected(reason: otherApps.rejection(for: receipt.bundleID) ?? "bundle_mismatch"))
            }
            return .outcome(
                .valid(
                    environment: body.environment ?? endpoint.rawValue,
                    transactions: body.verifiedTransactions))
        }
    }

    /// Classifies a request that got no answer. Every such failure is transient: a timeout or
    /// a refused connection passes, and one that does not (a malformed URL, a certificate that
    /// does not verify) is the configuration's fault, not the receipt's, so the receipt should
    /// reach the dead-letter queue for an operator rather than be rejected for good.
    /// - Parameter error: Why no answer came.
    public static func classify(_ error: HTTPClientError) -> VerificationOutcome {
        let reason =
            switch error.code {
            case .timeout: "timeout"
            case .connectionRefused: "connection_refused"
            case .dnsFailure: "dns_failure"
            case .tls: "tls_failure"
            case .transport: "transport_failure"
            case .invalidRequest: "invalid_request"
            case .responseTooLarge: "response_too_large"
            case .cancelled: "cancelled"
            case .shutdown: "client_shutdown"
            default: "http_client_\(error.code)"
            }
        return .transient(reason: reason)
    }

    /// `Retry-After` as a duration: delay seconds, or an HTTP date after `now`; `nil` if it is
    /// neither, or already past.
    /// - Parameters:
    ///   - value: The header's value, such as `120` or `Wed, 21 Oct 2015 07:28:00 GMT`.
    ///   - now: The clock.
    public static func retryAfterDuration(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .seconds(seconds.rounded(.up)) : nil
    }
}
