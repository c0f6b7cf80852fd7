import Foundation

/// What a StoreKit 2 purchase credited without an `appAccountToken` owes Apple: a Set App
/// Account Token on its original transaction, with the token of the account credited (read
/// when it is sent). Carried as the transaction's confirmation payload, owed in the credit's
/// own database transaction (`store_confirmations`, store `apple`).
public struct AppAccountTokenOwed: Codable, Hashable, Sendable {
    public var originalTransactionID: String
    public var environment: AppStoreServerAPIEnvironment

    public init(originalTransactionID: String, environment: AppStoreServerAPIEnvironment) {
        self.originalTransactionID = originalTransactionID
        self.environment = environment
    }

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case environment
    }

    /// The payload, keys sorted.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    public init?(json: String) {
        guard let owed = try? JSONDecoder().decode(Self.self, from: Data(json.utf8)) else { return nil }
        self = owed
    }
}

extension AppStoreServerAPIEnvironment: Codable {}
