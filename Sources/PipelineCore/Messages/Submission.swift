import Foundation

/// Something to verify with Apple or a plug-in store: the body of a message on the validate queue.
///
/// It carries exactly one kind of ``Evidence``. Its ``id`` is that of the row it came
/// from: a receipt's, an Apple notification's or a subscription check's (the schema keeps
/// their ids apart).
public struct Submission: Hashable, Sendable {
    /// The id of the receipt, notification or check: verdicts name it.
    public var id: String
    /// The account that submitted it; empty for a store's notification.
    public var accountID: String
    /// A store's notification: the key of the app whose credential proved it (``AppScope/key``,
    /// `""` for the default app), which verifies it with its own credentials. Nil for a
    /// receipt or a check, whose account names its app, and in a message of a release before
    /// apps were proven (its validator keeps that release's routing).
    public var app: String?
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

/// What a submission asks a store about: one store's evidence, routed by its store.
///
/// Apple's kinds have names of their own (``receipt(_:)``, ``signedTransaction(_:)``,
/// ``notification(signedPayload:)``, ``subscriptionCheck(originalTransactionID:latestReceipt:)``,
/// StoreEvidence+Apple.swift), as they had when Apple was built in.
public enum Evidence: Hashable, Sendable {
    case store(StoreEvidence)

    /// The store's evidence.
    public var storeEvidence: StoreEvidence {
        switch self {
        case .store(let evidence): evidence
        }
    }

    /// The kind's name, as logs and metrics say it (``StoreEvidence/receiptKind``).
    public var kind: String { storeEvidence.receiptKind }
}

// MARK: - Wire format

extension Submission: Codable {
    enum CodingKeys: String, CodingKey {
        // The id keeps the key it always had on the wire.
        case id = "receipt_id"
        case accountID = "account_id"
        case app
        case receiptData = "receipt_data"
        case signedTransaction = "signed_transaction"
        case signedPayload = "signed_payload"
        case subscriptionCheck = "subscription_check"
        // Apple's and Google Play's, as the releases that built them in wrote them
        // (StoreEvidence+Apple.swift, StoreEvidence+GooglePlay.swift).
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
        app = try container.decodeIfPresent(String.self, forKey: .app)
        orderID = try container.decodeIfPresent(String.self, forKey: .orderID)
        productID = try container.decodeIfPresent(String.self, forKey: .productID)
        submittedAt = try container.decode(Date.self, forKey: .submittedAt)
        let receipt = try container.decodeIfPresent(String.self, forKey: .receiptData)
        let signed = try container.decodeIfPresent(String.self, forKey: .signedTransaction)
        let payload = try container.decodeIfPresent(String.self, forKey: .signedPayload)
        let check = try container.decodeIfPresent(String.self, forKey: .subscriptionCheck)
        let apple: StoreEvidence? =
            switch (receipt, signed, payload, check) {
            case (let latest, nil, nil, let original?): .appleCheck(original: original, latestReceipt: latest)
            case (let receipt?, nil, nil, nil): .apple(.receipt, receipt)
            case (nil, let signed?, nil, nil): .apple(.signedTransaction, signed)
            case (nil, nil, let payload?, nil): .apple(.notification, payload)
            case (nil, nil, nil, nil): nil
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .receiptData, in: container, debugDescription: "a submission carries more than one evidence"
                )
            }
        let found = try [
            apple,
            container.decodeIfPresent(StoreEvidence.self, forKey: .store),
            container.decodeIfPresent(GooglePlayPurchase.self, forKey: .googlePlay).map(StoreEvidence.builtIn),
            container.decodeIfPresent(GoogleNotice.self, forKey: .googleNotice).map(StoreEvidence.builtIn),
        ].compactMap { $0 }
        guard let evidence = found.first else {
            throw DecodingError.dataCorruptedError(
                forKey: .receiptData, in: container, debugDescription: "a submission carries no evidence")
        }
        guard found.count == 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .store, in: container, debugDescription: "a submission carries more than one evidence")
        }
        self.evidence = .store(evidence)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(accountID, forKey: .accountID)
        try container.encodeIfPresent(app, forKey: .app)
        let evidence = evidence.storeEvidence
        switch (evidence.builtInApple, evidence.builtInGooglePlay) {
        case (.receipt(let data)?, _): try container.encode(data, forKey: .receiptData)
        case (.signedTransaction(let jws)?, _): try container.encode(jws, forKey: .signedTransaction)
        case (.notification(let payload)?, _): try container.encode(payload, forKey: .signedPayload)
        case (.subscriptionCheck(let original, let latest)?, _):
            try container.encode(original, forKey: .subscriptionCheck)
            try container.encodeIfPresent(latest, forKey: .receiptData)
        case (nil, .purchase(let purchase)?): try container.encode(purchase, forKey: .googlePlay)
        case (nil, .notice(let notice)?): try container.encode(notice, forKey: .googleNotice)
        case (nil, nil): try container.encode(evidence, forKey: .store)
        }
        try container.encodeIfPresent(orderID, forKey: .orderID)
        try container.encodeIfPresent(productID, forKey: .productID)
        try container.encode(submittedAt, forKey: .submittedAt)
    }
}
