import HTTPClient
import PipelineCore

/// Why an App Store Server API call failed, and whether trying again could help.
///
/// ```swift
/// do {
///     let info = try await client.getTransactionInfo(transactionID: id)
/// } catch {
///     // error.isRetryable: a delayed retry may succeed (network, 5xx, 429, Apple's *Retryable codes);
///     // error.retryAfter: the server's hint, after a 429.
///     return error.outcome  // .transient(reason: "http_503", ...) or .rejected(reason: "app_store_api_4040010")
/// }
/// ```
///
/// A struct over a private enum, so that codes can be added without breaking callers.
public struct AppStoreServerAPIError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public let code: Code
    /// The call that failed, such as `getTransactionInfo`.
    public let endpoint: String
    /// The deployment that answered last, or that was asked when no answer came.
    public let environment: AppStoreServerAPIEnvironment?
    /// The HTTP status, if an answer came.
    public let status: Int?
    /// Apple's `errorCode` from the error body, if it had one.
    public let errorCode: Int?
    /// Apple's `errorMessage` from the error body, if it had one.
    public let errorMessage: String?
    /// Whether the same call may succeed later.
    public let isRetryable: Bool
    /// How long the server asked to wait (`Retry-After` of a `429`), if it said.
    public let retryAfter: Duration?
    /// Why no answer came, for ``Code/transport``.
    public let underlying: HTTPClientError?
    /// More detail for people, such as why a body did not decode.
    public let detail: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - endpoint: The call that failed.
    ///   - environment: The deployment involved.
    ///   - status: The HTTP status, if an answer came.
    ///   - errorCode: Apple's `errorCode`, if any.
    ///   - errorMessage: Apple's `errorMessage`, if any.
    ///   - isRetryable: Whether the same call may succeed later.
    ///   - retryAfter: The server's `Retry-After`, if any.
    ///   - underlying: The transport failure, if that is what happened.
    ///   - detail: More detail for people.
    public init(
        _ code: Code, endpoint: String, environment: AppStoreServerAPIEnvironment?, status: Int? = nil,
        errorCode: Int? = nil, errorMessage: String? = nil, isRetryable: Bool, retryAfter: Duration? = nil,
        underlying: HTTPClientError? = nil, detail: String? = nil
    ) {
        self.code = code
        self.endpoint = endpoint
        self.environment = environment
        self.status = status
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.isRetryable = isRetryable
        self.retryAfter = retryAfter
        self.underlying = underlying
        self.detail = detail
    }

    /// Apple's `errorCode`, typed.
    public var apiErrorCode: AppStoreServerAPIErrorCode? { errorCode.map(AppStoreServerAPIErrorCode.init(rawValue:)) }

    /// A machine-readable reason: `invalid_response_body` or `configuration` for those codes,
    /// else `app_store_api_4040010` when Apple gave an `errorCode`, else `http_401`, `http_503`,
    /// ..., else the transport's (`timeout`, `connection_refused`, ...).
    public var reason: String {
        if code == .invalidResponse { return "invalid_response_body" }
        if code == .configuration { return "configuration" }
        if code == .overBudget { return "server_api_budget_\(endpoint)" }
        if let errorCode { return "app_store_api_\(errorCode)" }
        if let status { return "http_\(status)" }
        if let underlying, case .transient(let reason, _) = VerifyReceiptExchange.classify(underlying) {
            return reason
        }
        return "invalid_response_body"
    }

    /// The verdict this failure amounts to: transient (with ``retryAfter``) if retryable,
    /// else rejected, both with ``reason``.
    public var outcome: VerificationOutcome {
        if code == .overBudget { return .deferred(reason: reason, retryAfter: retryAfter ?? .seconds(1)) }
        return isRetryable ? .transient(reason: reason, retryAfter: retryAfter) : .rejected(reason: reason)
    }

    /// Such as `getTransactionInfo at Sandbox: apiError (not retryable): HTTP 404, 4040010 Transaction id not found.`
    public var description: String {
        var text = endpoint
        if let environment { text += " at \(environment.rawValue)" }
        text += ": \(code) (\(isRetryable ? "retryable" : "not retryable"))"
        var parts: [String] = []
        if let status { parts.append("HTTP \(status)") }
        if let errorCode { parts.append([String(errorCode), errorMessage].compactMap { $0 }.joined(separator: " ")) }
        if let retryAfter { parts.append("retry after \(retryAfter)") }
        if let underlying { parts.append("\(underlying)") }
        if let detail { parts.append(detail) }
        if !parts.isEmpty { text += ": " + parts.joined(separator: ", ") }
        return text
    }
}

extension AppStoreServerAPIError {
    /// The kind of an ``AppStoreServerAPIError``; compare with `==` against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case apiError
            case rateLimited
            case unauthorized
            case transport
            case invalidResponse
            case configuration
            case overBudget
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// Apple answered with an error status (4xx other than 401 and 429, or 5xx); see
        /// ``AppStoreServerAPIError/errorCode``. Retryable for 5xx and Apple's `*Retryable` codes.
        public static let apiError = Code(.apiError)
        /// `429`: too many requests, still so after the retries the configuration allows.
        /// Retryable, after ``AppStoreServerAPIError/retryAfter``.
        public static let rateLimited = Code(.rateLimited)
        /// `401`: the JWT was refused (wrong key, key id, issuer, bundle id, or clock). Not
        /// retryable: the same credentials meet the same answer.
        public static let unauthorized = Code(.unauthorized)
        /// No answer came (see ``AppStoreServerAPIError/underlying``); retryable as the HTTP
        /// client says.
        public static let transport = Code(.transport)
        /// A success status with a body that is not the expected JSON, or history pages that
        /// never end. Retryable: it is the endpoint's fault, not the purchase's.
        public static let invalidResponse = Code(.invalidResponse)
        /// The request could not be authorized because signing the JWT failed.
        public static let configuration = Code(.configuration)
        /// Not sent: the shared call budget for the endpoint has no room before
        /// ``AppStoreServerAPIError/retryAfter`` (or could not be read). Retryable; the
        /// outcome is ``VerificationOutcome/deferred(reason:retryAfter:)``, no attempt spent.
        public static let overBudget = Code(.overBudget)

        /// The code's name, such as `rateLimited`.
        public var description: String { value.rawValue }
    }
}
