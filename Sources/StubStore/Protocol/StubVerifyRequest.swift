/// The body of `POST /verifyReceipt`, as Apple documents it
/// ([requestBody](https://developer.apple.com/documentation/appstorereceipts/requestbody)).
///
/// Read leniently, as a server should: a field of the wrong type counts as missing.
struct StubVerifyRequest: Decodable, Sendable {
    /// `receipt-data`: the base64 receipt.
    var receiptData: String?
    /// `password`: the app's shared secret.
    var password: String?
    /// `exclude-old-transactions`: only the latest renewal of each subscription in
    /// `latest_receipt_info`.
    var excludeOldTransactions: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        receiptData = try? container.decodeIfPresent(String.self, forKey: .receiptData)
        password = try? container.decodeIfPresent(String.self, forKey: .password)
        excludeOldTransactions = (try? container.decodeIfPresent(Bool.self, forKey: .excludeOldTransactions)) ?? false
    }

    enum CodingKeys: String, CodingKey {
        case receiptData = "receipt-data"
        case password
        case excludeOldTransactions = "exclude-old-transactions"
    }
}
