import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore

extension PipelineHarness {
    /// Submits a receipt that fails verification `failFirst` times (transient 21100), so that
    /// with `maxAttempts` ≤ `failFirst` it dies, and verifies once replayed. Returns its id
    /// once it is dead (and so archived).
    func submitDoomed(account: String, transactionID: String, failFirst: Int = 2) async throws -> String {
        let data = stub.issue(
            StubReceipt(
                bundleID: Self.bundleID, environment: .production,
                transactions: [
                    StubReceipt.Transaction(transactionID: transactionID, productID: "com.example.coins100")
                ],
                failFirst: failFirst))
        let (_, id) = try await submit(account: account, receiptData: data)
        guard let id else { throw HarnessFailure("no receipt id for \(account)") }
        let final = try await finalStatus(id)
        guard final["status"] as? String == "dead" else { throw HarnessFailure("receipt \(id) ended \(final)") }
        return id
    }

    /// The open dead letter of a receipt.
    func letterID(receipt: String) async throws -> String {
        guard
            let letter = try await DeadLetterRepository(database).deadLetters(receiptID: receipt).last(where: {
                $0.status.isOpen
            })
        else {
            throw HarnessFailure("no open dead letter for receipt \(receipt)")
        }
        return letter.id
    }

    /// The environment an `iap` process needs to work on this pipeline.
    var processEnvironment: [String: String] {
        databaseEnvironment.merging(
            ["IAP_AMQP_URL": broker.url, "IAP_QUEUE_PREFIX": topology.prefix, "IAP_LOG_LEVEL": "error"]
        ) { $1 }
    }

    /// How many `receipt.credited` webhooks the backend accepted for a receipt.
    func creditedWebhooks(_ receiptID: String) -> Int {
        webhooks(for: receiptID).filter { $0["type"] as? String == "receipt.credited" }.count
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
