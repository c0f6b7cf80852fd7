import Database
import Foundation

/// A receipt as the fulfiller settles it: whose it is, what it is and where it stands.
///
/// Not its payload. Apple's receipts are 5-10 KB and a long subscription history's 100 KB,
/// and the fulfiller reads its batch's receipts inside the write lock every other writer
/// waits for; nothing it decides depends on the receipt's bytes, which the validator read.
struct SettlingReceipt: Codable, Hashable, Sendable, Identifiable {
    var id: String
    var accountID: String
    var kind: ReceiptKind
    var orderID: String?
    var status: ReceiptStatus
    var reason: String?
    var attempts: Int
    var environment: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id
        case accountID = "account_id"
        case kind
        case orderID = "order_id"
        case status, reason, attempts, environment
    }

    /// The columns of `receipts` it is read from.
    static let columns = CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
}
