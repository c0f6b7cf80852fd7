import Foundation

/// The JSON body of a `verifyReceipt` answer
/// ([responseBody](https://developer.apple.com/documentation/appstorereceipts/responsebody)).
///
/// Decoding is lenient, as Apple's answers demand: unknown fields are ignored, numbers may
/// come as strings and strings as numbers, and a field of an unexpected type counts as
/// absent. Only `status` is required. Encoding writes Apple's shape (timestamps as
/// millisecond strings), so tests can build answers from values.
public struct VerifyReceiptResponse: Codable, Hashable, Sendable {
    /// `status`: `0` if the receipt is valid, else an error code.
    public var status: VerifyReceiptStatus
    /// `environment`: `Production` or `Sandbox`.
    public var environment: String?
    /// `is-retryable`: for `21100...21199`, whether trying again later may succeed.
    public var isRetryable: Bool?
    /// `receipt`: the receipt that was sent, decoded.
    public var receipt: Receipt?
    /// `latest_receipt_info`: every transaction, renewals included; only for receipts that
    /// hold auto-renewable subscriptions.
    public var latestReceiptInfo: [Transaction]?
    /// `latest_receipt`: the latest base64 receipt; only for auto-renewable subscriptions.
    public var latestReceipt: String?
    /// `pending_renewal_info`: one entry per auto-renewable subscription.
    public var pendingRenewalInfo: [PendingRenewal]?

    /// Creates an answer.
    /// - Parameters:
    ///   - status: The status code.
    ///   - environment: `Production` or `Sandbox`.
    ///   - isRetryable: `is-retryable`, if set.
    ///   - receipt: The decoded receipt.
    ///   - latestReceiptInfo: `latest_receipt_info`, if any.
    ///   - latestReceipt: `latest_receipt`, if any.
    ///   - pendingRenewalInfo: `pending_renewal_info`, if any.
    public init(
        status: VerifyReceiptStatus, environment: String? = nil, isRetryable: Bool? = nil, receipt: Receipt? = nil,
        latestReceiptInfo: [Transaction]? = nil, latestReceipt: String? = nil,
        pendingRenewalInfo: [PendingRenewal]? = nil
    ) {
        self.status = status
        self.environment = environment
        self.isRetryable = isRetryable
        self.receipt = receipt
        self.latestReceiptInfo = latestReceiptInfo
        self.latestReceipt = latestReceipt
        self.pendingRenewalInfo = pendingRenewalInfo
    }

    enum CodingKeys: String, CodingKey {
        case status, environment, receipt
        case isRetryable = "is-retryable"
        case latestReceiptInfo = "latest_receipt_info"
        case latestReceipt = "latest_receipt"
        case pendingRenewalInfo = "pending_renewal_info"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let status = container.lenientInt(.status) else {
            throw DecodingError.dataCorruptedError(
                forKey: .status, in: container, debugDescription: "a verifyReceipt answer needs a numeric status")
        }
        self.status = VerifyReceiptStatus(rawValue: status)
        environment = container.lenientString(.environment)
        isRetryable = container.lenientBool(.isRetryable)
        receipt = try? container.decodeIfPresent(Receipt.self, forKey: .receipt)
        latestReceiptInfo = try? container.decodeIfPresent([Transaction].self, forKey: .latestReceiptInfo)
        latestReceipt = container.lenientString(.latestReceipt)
        pendingRenewalInfo = try? container.decodeIfPresent([PendingRenewal].self, forKey: .pendingRenewalInfo)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status.rawValue, forKey: .status)
        try container.encodeIfPresent(environment, forKey: .environment)
        try container.encodeIfPresent(isRetryable, forKey: .isRetryable)
        try container.encodeIfPresent(receipt, forKey: .receipt)
        try container.encodeIfPresent(latestReceiptInfo, forKey: .latestReceiptInfo)
        try container.encodeIfPresent(latestReceipt, forKey: .latestReceipt)
        try container.encodeIfPresent(pendingRenewalInfo, forKey: .pendingRenewalInfo)
    }
}
