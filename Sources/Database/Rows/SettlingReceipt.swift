import Foundation

/// A receipt as the fulfiller settles it: whose it is, what it is and where it stands.
///
/// Not its payload. Apple's receipts are 5-10 KB and a long subscription history's 100 KB,
/// and the fulfiller reads its batch's receipts inside the write lock every other writer
/// waits for; nothing it decides depends on the receipt's bytes, which the validator read.
package struct SettlingReceipt: Codable, Hashable, Sendable, Identifiable {
    package var id: String
    package var accountID: String
    package var kind: ReceiptKind
    package var orderID: String?
    package var status: ReceiptStatus
    package var reason: String?
    package var attempts: Int
    package var environment: String?

    package init(
        id: String, accountID: String, kind: ReceiptKind, orderID: String? = nil, status: ReceiptStatus,
        reason: String? = nil, attempts: Int, environment: String? = nil
    ) {
        self.id = id
        self.accountID = accountID
        self.kind = kind
        self.orderID = orderID
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.environment = environment
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id
        case accountID = "account_id"
        case kind
        case orderID = "order_id"
        case status, reason, attempts, environment
    }

    /// The columns of `receipts` it is read from.
    package static let columns = CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
}
