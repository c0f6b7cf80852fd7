import Crypto
import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

/// Hex SHA-256, as the intake computes payload and request hashes.
public func sha256Hex(_ text: String) -> String {
    SHA256.hash(data: Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
}

extension NewReceipt {
    /// A receipt (legacy unless `kind` says) as the intake would store it, for tests that start past the intake.
    public static func fixture(
        id: String = UUID().uuidString.lowercased(), accountID: String = "player", kind: ReceiptKind = .legacy,
        payload: String? = nil
    )
        -> NewReceipt
    {
        let payload = payload ?? Data("receipt \(id)".utf8).base64EncodedString()
        return NewReceipt(
            id: id, accountID: accountID, kind: kind, payload: payload,
            payloadHash: sha256Hex(kind.rawValue + ":" + payload),
            requestHash: sha256Hex(accountID + payload))
    }
}

extension Verdict {
    /// The validator's valid verdict of `receipt`: each (transaction, product) bought at
    /// `date`, its own original, ending at `expires` if given.
    public static func fixture(
        _ receipt: NewReceipt, _ purchases: [(transaction: String, product: String)], at date: Date,
        expires: Date? = nil
    ) -> Verdict {
        Verdict(
            outcome: .valid, receiptID: receipt.id, accountID: receipt.accountID, attempts: 1, environment: "Sandbox",
            transactions: purchases.map {
                VerifiedTransaction(
                    transactionID: $0.transaction, originalTransactionID: $0.transaction, productID: $0.product,
                    purchaseDate: date, expiresDate: expires)
            }, decidedAt: date)
    }
}
