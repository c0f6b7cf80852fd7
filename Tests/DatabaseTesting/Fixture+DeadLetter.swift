import Database
import Foundation

extension Fixture {
    /// A dead letter as the validator archives one: six attempts, the last a 503.
    static func letter(
        _ id: String, receipt: String?, reason: String = "attempts_exhausted: http_503", deadAt: Date = Fixture.t0,
        body: String = "{}"
    ) -> DeadLetter {
        DeadLetter(
            id: id, receiptID: receipt, accountID: nil, reason: reason, attempts: 6, lastError: "http_503",
            sourceQueue: "iap.validate", body: Data(body.utf8), headers: "{\"x-iap-attempts\":6}", deadAt: deadAt,
            createdAt: deadAt)
    }
}
