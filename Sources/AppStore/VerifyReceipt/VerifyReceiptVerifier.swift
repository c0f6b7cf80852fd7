import Foundation
import HTTPClient
import Logging
import PipelineCore

/// Verifies legacy app receipts with Apple's `verifyReceipt` endpoint, or any endpoint that
/// speaks its protocol (the stub store).
///
/// Production is asked first; `21007` sends the same receipt to the sandbox and `21008` back
/// to production, as Apple documents. Every answer and every failure is classified (see
/// ``VerifyReceiptExchange``): valid, rejected for good, or transient.
///
/// ```swift
/// let client = try CurlHTTPClient()
/// let verifier = try VerifyReceiptVerifier(
///     configuration: .init(bundleID: "com.example.game", sharedSecret: secret),
///     client: client
/// )
/// switch await verifier.verify(submission) {
/// case .valid(let environment, let transactions): ...
/// case .rejected(let reason): ...
/// case .transient(let reason, let retryAfter): ...
/// }
/// ```
///
/// The receipt and the shared secret are never logged.
public struct VerifyReceiptVerifier: ReceiptVerifier {
    /// The reason a submission with only a StoreKit 2 signed transaction is rejected, until
    /// JWS verification exists.
    public static let signedTransactionUnsupported = "unsupported: signed_transaction needs StoreKit 2 verification"
    /// The reason a submission with neither a receipt nor a signed transaction is rejected.
    public static let missingReceipt = "missing_receipt_data"

    /// The endpoints, secret and bundle id in use.
    public let configuration: Configuration
    private let client: CurlHTTPClient
    private let logger: Logger

    /// Creates a verifier.
    /// - Parameters:
    ///   - configuration: The endpoints, secret and bundle id.
    ///   - client: The HTTP client to send requests with; shared, not owned: its owner shuts it down.
    ///   - logger: Where verification details go, at debug level (warnings for odd answers).
    /// - Throws: ``VerifyReceiptConfigurationError`` if a URL is not `http(s)`, the bundle id
    ///   is empty or the timeout is not positive.
    public init(
        configuration: Configuration, client: CurlHTTPClient,
        logger: Logger = Logger(label: "AppStore.verifyReceipt")
    ) throws(VerifyReceiptConfigurationError) {
        for (name, url) in [("productionURL", configuration.productionURL), ("sandboxURL", configuration.sandboxURL)] {
            guard let scheme = URL(string: url)?.scheme?.lowercased(), ["http", "https"].contains(scheme),
                URL(string: url)?.host?.isEmpty == false
            else {
                throw VerifyReceiptConfigurationError("\(name) must be an http(s) URL, not '\(url)'")
            }
        }
        guard !configuration.bundleID.isEmpty else { throw VerifyReceiptConfigurationError("bundleID is empty") }
        guard configuration.requestTimeout > .zero else {
            throw VerifyReceiptConfigurationError("requestTimeout must be positive")
        }
        self.configuration = configuration
        self.client = client
        self.logger = logger
    }

    /// Asks the endpoints about `submission`'s receipt and classifies the answer.
    /// - Parameter submission: The receipt as the intake committed it.
    /// - Returns: Valid with the transactions, rejected with a reason such as
    ///   `apple_status_21003` or `bundle_mismatch`, or transient with a reason such as
    ///   `timeout`, `http_503` or `apple_status_21005`.
    public func verify(_ submission: Submission) async -> VerificationOutcome {
        guard let receiptData = submission.evidence.legacyReceipt, !receiptData.isEmpty else {
            return .rejected(
                reason: submission.evidence.signedTransaction == nil
                    ? Self.missingReceipt : Self.signedTransactionUnsupported)
        }
        let body = requestBody(receiptData)
        var logger = self.logger
        logger[metadataKey: "receipt_id"] = "\(submission.id)"
        var environment = VerifyReceiptEnvironment.production
        var asked: Set<VerifyReceiptEnvironment> = []
        while true {
            asked.insert(environment)
            let step = await ask(environment, body: body, logger: logger)
            switch step {
            case .outcome(let outcome):
                log(outcome, from: environment, logger: logger)
                return outcome
            case .redirect(let next, let status):
                guard !asked.contains(next) else {
                    // Both endpoints sent the receipt to the other: an endpoint is confused.
                    logger.warning("verifyReceipt endpoints disagree", metadata: ["status": "\(status)"])
                    return .transient(reason: status.reason)
                }
                logger.debug("verifyReceipt redirect", metadata: ["status": "\(status)", "to": "\(next.rawValue)"])
                environment = next
            }
        }
    }

    // MARK: One request

    private func ask(
        _ environment: VerifyReceiptEnvironment, body: [UInt8], logger: Logger
    ) async -> VerifyReceiptExchange.Step {
        let request = HTTPRequest(
            method: .post,
            url: configuration.url(environment),
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: body,
            timeout: configuration.requestTimeout
        )
        do {
            let response = try await client.execute(request)
            let step = VerifyReceiptExchange.classify(
                response, from: environment, bundleID: configuration.bundleID, otherApps: configuration.otherApps)
            if case .outcome(.transient(let reason, _)) = step, reason == "invalid_response_body" {
                logger.warning(
                    "verifyReceipt answer is not a verifyReceipt body",
                    metadata: ["http_status": "\(response.status)", "bytes": "\(response.body.count)"])
            }
            return step
        } catch {
            logger.debug("verifyReceipt request failed", metadata: ["error": "\(error)"])
            return .outcome(VerifyReceiptExchange.classify(error))
        }
    }

    /// `{"receipt-data": ..., "password": ..., "exclude-old-transactions": ...}`, written
    /// straight to bytes: `JSONEncoder`'s escaping of a receipt's kilobytes was 4 % of the validator.
    private func requestBody(_ receiptData: String) -> [UInt8] {
        var json = JSONText(capacity: receiptData.utf8.count + 128)
        json.object { json in
            json.member("exclude-old-transactions", configuration.excludeOldTransactions)
            json.member("password", ifPresent: configuration.sharedSecret)
            json.member("receipt-data", receiptData)
        }
        return json.bytes
    }

    private func log(_ outcome: VerificationOutcome, from environment: VerifyReceiptEnvironment, logger: Logger) {
        switch outcome {
        case .valid(let answered, let transactions):
            logger.debug(
                "receipt valid",
                metadata: ["environment": "\(answered)", "transactions": "\(transactions.count)"])
        case .notification:
            break  // verifyReceipt never answers with a notification
        case .rejected(let reason):
            logger.debug("receipt rejected", metadata: ["reason": "\(reason)", "endpoint": "\(environment.rawValue)"])
        case .transient(let reason, _), .deferred(let reason, _):
            if reason.hasPrefix("apple_status_"), !Self.documentedTransient(reason) {
                logger.warning("verifyReceipt answered an undocumented status", metadata: ["reason": "\(reason)"])
            } else {
                logger.debug(
                    "verify transient", metadata: ["reason": "\(reason)", "endpoint": "\(environment.rawValue)"])
            }
        }
    }

    private static func documentedTransient(_ reason: String) -> Bool {
        guard let code = Int(reason.dropFirst("apple_status_".count)) else { return false }
        return [21002, 21005, 21009].contains(code) || VerifyReceiptStatus.internalErrors.contains(code)
    }
}
