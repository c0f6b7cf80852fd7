import PipelineCore

/// A receipt the intake wants stored, as it arrived in `POST /v1/receipts`.
public struct NewReceipt: Hashable, Sendable {
    /// Made by the caller (a UUID string); becomes the receipt's id if it is stored.
    public var id: String
    public var accountID: String
    public var kind: ReceiptKind
    /// The `receipt_data` (base64) or the `signed_transaction` (JWS), untouched.
    public var payload: String
    /// Lower-case hex SHA-256 of the kind and the payload: the same receipt sent twice
    /// by one account has the same hash and is stored once.
    public var payloadHash: String
    public var orderID: String?
    /// What the client believes it bought.
    public var productID: String?
    /// The `Idempotency-Key` header, if the caller sent one.
    public var idempotencyKey: String?
    /// Lower-case hex SHA-256 of the request body, to tell a retry (same body) from a
    /// reuse of the idempotency key for another request (different body).
    public var requestHash: String
    /// The intake's span as a W3C `traceparent`, stored with the row; nil when tracing is off.
    public var traceparent: String?

    public init(
        id: String, accountID: String, kind: ReceiptKind, payload: String, payloadHash: String,
        orderID: String? = nil, productID: String? = nil, idempotencyKey: String? = nil, requestHash: String
    ) {
        self.id = id
        self.accountID = accountID
        self.kind = kind
        self.payload = payload
        self.payloadHash = payloadHash
        self.orderID = orderID
        self.productID = productID
        self.idempotencyKey = idempotencyKey
        self.requestHash = requestHash
    }

    /// A receipt as a backend posted it, with the hashes that find its duplicates: the same
    /// payload of the same kind for the same account is stored once, and a reused
    /// idempotency key is told from a retry by the request's other fields.
    public static func posted(
        id: String, accountID: String, kind: ReceiptKind, payload: String, orderID: String? = nil,
        productID: String? = nil, idempotencyKey: String? = nil
    ) -> NewReceipt {
        NewReceipt(
            id: id, accountID: accountID, kind: kind, payload: payload,
            payloadHash: PayloadHash.sha256Hex("\(kind.rawValue):\(payload)"), orderID: orderID,
            productID: productID, idempotencyKey: idempotencyKey,
            requestHash: PayloadHash.sha256Hex(
                [accountID, kind.rawValue, payload, orderID ?? "", productID ?? ""].joined(separator: "\n")))
    }
}
