import Foundation
import HTTPClient

/// The pure part of one App Store Server API request: what an HTTP answer, or the failure to
/// get one, means. No I/O, so every case is testable with values.
///
/// - `2xx`: success; the body is decoded by the caller (``decode(_:from:endpoint:environment:)``).
/// - `401`: ``AppStoreServerAPIError/Code/unauthorized``, permanent.
/// - `429`: ``AppStoreServerAPIError/Code/rateLimited``, retryable, with `Retry-After`.
/// - `errorCode` `4040010` from production: ask the sandbox with the same request.
/// - Apple's retryable codes (`4040002`, `4040004`, `4040006`, `5000001`) and any `5xx`:
///   retryable. Any other `4xx`: permanent.
public enum AppStoreServerAPIExchange {
    /// What to do after one request.
    public enum Step: Sendable {
        /// A `2xx` answer: decode its body.
        case success(HTTPResponse)
        /// Production does not know the transaction (`4040010`): ask the sandbox. Carries the
        /// error to report if there is no sandbox to ask.
        case trySandbox(AppStoreServerAPIError)
        /// `429`: wait for ``AppStoreServerAPIError/retryAfter`` and ask again, if the budget allows.
        case rateLimited(AppStoreServerAPIError)
        /// Done, with this error.
        case failure(AppStoreServerAPIError)
    }

    /// Classifies the answer of `environment` to `endpoint`.
    /// - Parameters:
    ///   - response: The HTTP answer.
    ///   - endpoint: The call's name, for the error.
    ///   - environment: Which deployment answered.
    ///   - now: The clock, for a `Retry-After` given as a point in time.
    public static func classify(
        _ response: HTTPResponse, endpoint: String, from environment: AppStoreServerAPIEnvironment,
        now: Date = Date()
    ) -> Step {
        if response.isSuccess { return .success(response) }
        let body = try? JSONDecoder().decode(AppStoreServerAPIErrorBody.self, from: response.bodyData)
        func error(_ code: AppStoreServerAPIError.Code, retryable: Bool, retryAfter: Duration? = nil)
            -> AppStoreServerAPIError
        {
            AppStoreServerAPIError(
                code, endpoint: endpoint, environment: environment, status: response.status,
                errorCode: body?.errorCode, errorMessage: body?.errorMessage, isRetryable: retryable,
                retryAfter: retryAfter)
        }
        switch response.status {
        case 401:
            return .failure(error(.unauthorized, retryable: false))
        case 429:
            let retryAfter = response.header("Retry-After").flatMap { Self.retryAfter($0, now: now) }
            return .rateLimited(error(.rateLimited, retryable: true, retryAfter: retryAfter))
        default:
            let failure = error(.apiError, retryable: isRetryable(status: response.status, errorCode: body?.errorCode))
            if body?.code == .transactionIDNotFound, environment == .production {
                return .trySandbox(failure)
            }
            return .failure(failure)
        }
    }

    /// Classifies a request that got no answer: retryable as the HTTP client says (timeouts,
    /// refused connections, resets are; a malformed URL or cancellation is not).
    /// - Parameters:
    ///   - error: Why no answer came.
    ///   - endpoint: The call's name.
    ///   - environment: The deployment that was asked.
    public static func classify(
        _ error: HTTPClientError, endpoint: String, at environment: AppStoreServerAPIEnvironment
    ) -> AppStoreServerAPIError {
        AppStoreServerAPIError(
            .transport, endpoint: endpoint, environment: environment, isRetryable: error.isRetryable,
            underlying: error)
    }

    /// Whether an error answer is worth asking again later.
    ///
    /// Apple's documented retryable codes (`4040002`, `4040004`, `4040006`, `5000001`), `429`
    /// (or its code `4290000`), any `5xx`, and statuses Apple never sends for an error
    /// (`1xx`, `3xx`: a proxy or a wrong URL, not the purchase) are; any other `4xx` is not.
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - errorCode: Apple's `errorCode`, if the body had one.
    public static func isRetryable(status: Int, errorCode: Int?) -> Bool {
        if let errorCode {
            let code = AppStoreServerAPIErrorCode(rawValue: errorCode)
            if code.isRetryable || code == .rateLimitExceeded { return true }
        }
        switch status {
        case 429, 500...: return true
        case 400..<500: return false
        default: return true
        }
    }

    /// `Retry-After` as a duration from `now`; `nil` if it is none of the forms below.
    ///
    /// - A number below 10^11: delay seconds (RFC 9110), as the stub store sends.
    /// - A larger number: a UNIX time in milliseconds, as Apple documents for this API
    ///   ([Identifying rate limits](https://developer.apple.com/documentation/appstoreserverapi/identifying-rate-limits));
    ///   one already past is `.zero`.
    /// - An HTTP date after `now`.
    /// - Parameters:
    ///   - value: The header's value.
    ///   - now: The clock.
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let number = Int64(text) {
            guard number >= 0 else { return nil }
            guard number >= 100_000_000_000 else { return .seconds(number) }
            let milliseconds = number - Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
            return .milliseconds(max(milliseconds, 0))
        }
        return VerifyReceiptExchange.retryAfterDuration(text, now: now)
    }

    /// Decodes a success body.
    /// - Parameters:
    ///   - type: The response model.
    ///   - response: The `2xx` answer.
    ///   - endpoint: The call's name, for the error.
    ///   - environment: Which deployment answered.
    /// - Throws: ``AppStoreServerAPIError/Code/invalidResponse`` (retryable) if the body is not
    ///   that model's JSON.
    public static func decode<Body: Decodable>(
        _ type: Body.Type, from response: HTTPResponse, endpoint: String,
        environment: AppStoreServerAPIEnvironment
    ) throws(AppStoreServerAPIError) -> Body {
        // `202 Accepted` and friends carry no body to decode.
        if let none = AppStoreServerAPINoContent() as? Body { return none }
        do {
            return try JSONDecoder().decode(Body.self, from: response.bodyData)
        } catch {
            throw AppStoreServerAPIError(
                .invalidResponse, endpoint: endpoint, environment: environment, status: response.status,
                isRetryable: true, detail: "body is not a \(Body.self): \(error)")
        }
    }
}
