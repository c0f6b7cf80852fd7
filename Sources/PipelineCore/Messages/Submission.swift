import Foundation

/// Something to verify with Apple or a plug-in store: the body of a message on the validate queue.
///
/// It carries exactly one kind of ``Evidence``. Its ``id`` is that of the row it came
/// from: a receipt's, an Apple notification's or a subscription check's (the schema keeps
/// their ids apart).
public struct Submission: Hashable, Sendable {
    /// The id of the receipt, notification or check: verdicts name it.
    public var id: String
    /// The account that submitted it; empty for an Apple notification.
    public var accountID: String
    public var evidence: Evidence
    public var orderID: String?
    /// What the client believes it bought; Apple's answer decides, this is only compared.
    public var productID: String?
    public var submittedAt: Date
    /// The W3C `traceparent` of the intake's span, when tracing is on. Not in the body: it
    /// travels in the message's `traceparent` header.
    public var traceparent: String?

    public init(
        id: String, accountID: String, evidence: Evidence, orderID: String? = nil, productID: String? = nil,
        submittedAt: Date
    ) {
        self.id = id
        self.accountID = accountID
        self.evidence = evidence
        self.orderID = orderID
        self.productID = productID
        self.submittedAt = submittedAt
    }
}

/// What a submission asks Apple or a store about: one kind, never two.
public enum Evidence: Hashable, Sendable {
    /// A legacy base64 app receipt, passed to `verifyReceipt` untouched.
    case receipt(String)
    /// A StoreKit 2 signed transaction (JWS).
    case signedTransaction(String)
    /// An App Store Server Notification V2 as Apple posted it (`signedPayload`, JWS).
    case notification(signedPayload: String)
    /// The scheduler's question about a subscription around its expiry: Apple's Server
    /// API is asked by original transaction id, or `verifyReceipt` with the latest receipt.
    case subscriptionCheck(originalTransactionID: String, latestReceipt: String?)
    /// A plug-in store's purchase or notification (`StorePlugins`), routed by its store:
    /// Google Play's, Huawei's, Stripe's.
    case store(StoreEvidence)

    /// The kind's name, as logs and metrics say it.
    public var kind: String {
        switch self {
        case .receipt: "receipt"
        case .signedTransaction: "signed_transaction"
        case .notification: "notification"
        case .subscriptionCheck: "subscription_check"
        case .store(let evidence): evidence.receiptKind
        }
    }
}

// MARK: - Wire format

extension Submission: Codable {
    enum CodingKeys: String, CodingKey {
        // The id keeps the key it always had on the wire.
        case id = "receipt_id"
        case accountID = "account_id"
        case receiptData = "receipt_data"
        case signedTransaction = "signed_transaction"
        case signedPayload = "signed_payload"
        case subscriptionCheck = "subscription_check"
        // Google Play's, as the releases that built it in wrote it (StoreEvidence+GooglePlay.swift).
        case googlePlay = "google_play"
        case googleNotice = "google_notice"
        case store = "store_evidence"
        case orderID = "order_id"
        case productID = "product_id"
        case submittedAt = "submitted_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        accountID = try container.decode(String.self, forKey: .accountID)
        orderID = try container.decodeIfPresent(String.self, forKey: .orderID)
        productID = try container.decodeIfPresent(String.self, forKey: .productID)
        submittedAt = try container.decode(Date.self, forKey: .submittedAt)
        let receipt = try container.decodeIfPresent(String.self, forKey: .receiptData)
        let signed = try container.decodeIfPresent(String.self, forKey: .signedTransaction)
        let payload = try container.decodeIfPresent(String.self, forKey: .signedPayload)
        let check = try container.decodeIfPresent(String.self, forKey: .subscriptionCheck)
        let plugged = try [
            container.decodeIfPresent(StoreEvidence.self, forKey: .store),
            container.decodeIfPresent(GooglePlayPurchase.self, forKey: .googlePlay).map(StoreEvidence.builtIn),
            container.decodeIfPresent(GoogleNotice.self, forKey: .googleNotice).map(StoreEvidence.builtIn),
        ].compactMap { $0 }
        if let store = plugged.first {
            guard receipt == nil, signed == nil, payload == nil, check == nil, plugged.count == 1 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .store, in: container, debugDescription: "a submission carries more than one evidence")
            }
            evidence = .store(store)
            return
        }
        switch (receipt, signed, payload, check) {
        case (let latest, nil, nil, let original?):
            evidence = .subscriptionCheck(originalTransactionID: original, latestReceipt: latest)
        case (let receipt?, nil, nil, nil): evidence = .receipt(receipt)
        case (nil, let signed?, nil, nil): evidence = .signedTransaction(signed)
        case (nil, nil, let payload?, nil): evidence = .notification(signedPayload: payload)
        case (nil, nil, nil, nil):
            throw DecodingError.dataCorruptedError(
                forKey: .receiptData, in: container, debugDescription: "a submission carries no evidence")
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .receiptData, in: container, debugDescription: "a submission carries more than one evidence")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(accountID, forKey: .accountID)
        switch evidence {
        case .receipt(let data): try container.encode(data, forKey: .receiptData)
        case .signedTransaction(let jws): try container.encode(jws, forKey: .signedTransaction)
        case .notification(let payload): try container.encode(payload, forKey: .signedPayload)
        case .subscriptionCheck(let original, let latest):
            try container.encode(original, forKey: .subscriptionCheck)
            try container.encodeIfPresent(latest, forKey: .receiptData)
        case .store(let plugged):
            switch plugged.builtInGooglePlay {
            case .purchase(let purchase)?: try container.encode(purchase, forKey: .googlePlay)
            case .notice(let notice)?: try container.encode(notice, forKey: .googleNotice)
            case nil: try container.encode(plugged, forKey: .store)
            }
        }
        try container.encodeIfPresent(orderID, forKey: .orderID)
        try container.encodeIfPresent(productID, forKey: .productID)
        try container.encode(submittedAt, forKey: .submittedAt)
    }
}

extension Evidence {
    /// The legacy receipt `verifyReceipt` is asked about: the receipt's, or a check's latest.
    public var legacyReceipt: String? {
        switch self {
        case .receipt(let data): data
        case .subscriptionCheck(_, let latest): latest
        case .signedTransaction, .notification, .store: nil
        }
    }

    public var signedTransaction: String? {
        if case .signedTransaction(let jws) = self { return jws }
        return nil
    }

    public var signedPayload: String? {
        if case .notification(let payload) = self { return payload }
        return nil
    }

    /// A plug-in store's evidence.
    public var storeEvidence: StoreEvidence? {
        if case .store(let evidence) = self { return evidence }
        return nil
    }

    /// The subscription a check asks about.
    public var checkedSubscription: String? {
        if case .subscriptionCheck(let original, _) = self { return original }
        return nil
    }
}
