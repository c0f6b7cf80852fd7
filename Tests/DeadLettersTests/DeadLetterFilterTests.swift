import Broker
import Database
import Foundation
import Repositories
import SettlementWriter
import Testing

@testable import DeadLetters

@Suite struct DeadLetterFilterTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    @Test func agesAreAWholeNumberAndAUnit() throws {
        let filter = try DeadLetterFilter(reason: " timeout ", accountID: "", olderThan: "30m", newerThan: "7d")
        #expect(filter.reason == "timeout")
        #expect(filter.accountID == nil)
        #expect(filter.olderThan == 1800)
        #expect(filter.newerThan == 7 * 86_400.0)
        let query = filter.query(now: now)
        #expect(query.deadBefore == now.addingTimeInterval(-1800))
        #expect(query.deadSince == now.addingTimeInterval(-7 * 86_400.0))
        #expect(query.statuses == [.waiting, .replaying])
        for (text, seconds) in [("45s", 45.0), ("2h", 7200), ("1w", 604_800), ("0m", 0)] {
            #expect(
                try DeadLetterFilter(reason: nil, accountID: nil, olderThan: text, newerThan: nil).olderThan == seconds)
        }
    }

    @Test func aMalformedAgeNamesTheFieldAndTheProblem() {
        for text in ["3x", "m", "-5m", "1.5h", "10 d", "99999999d"] {
            #expect(throws: FilterError.self) {
                try DeadLetterFilter(reason: nil, accountID: nil, olderThan: text, newerThan: nil)
            }
        }
        do {
            _ = try DeadLetterFilter(reason: nil, accountID: nil, olderThan: nil, newerThan: "soon")
            Issue.record("accepted 'soon'")
        } catch {
            #expect(error.field == "newer-than")
            #expect("\(error)".contains("'soon' is not a duration"))
        }
    }

    @Test func headersBecomeSortedJSON() throws {
        let json = AMQPHeadersJSON.encode([
            "x-iap-attempts": .int(3), "x-iap-dead-reason": "timeout", "flag": .bool(true), "raw": .bytes([0xFF]),
            "x-death": .array([.table(["queue": "iap.validate", "count": .int(1)])]), "none": .void,
        ])
        #expect(
            json
                == #"{"flag":true,"none":null,"raw":"/w==","x-death":[{"count":1,"queue":"iap.validate"}],"x-iap-attempts":3,"x-iap-dead-reason":"timeout"}"#
        )
    }

    @Test func deathRecordsComeFromTheArchivedXDeathHeader() {
        let json = AMQPHeadersJSON.encode([
            "x-death": .array([
                .table([
                    "queue": "iap.validate.retry.1s", "reason": "expired", "count": .int(3),
                    "time": .timestamp(1_750_000_000),
                ]),
                .table(["queue": "iap.validate", "reason": "rejected", "count": .int(1)]),
            ])
        ])
        #expect(
            DeathRecord.all(inHeaders: json) == [
                DeathRecord(
                    queue: "iap.validate.retry.1s", reason: "expired", count: 3,
                    time: Date(timeIntervalSince1970: 1_750_000_000)),
                DeathRecord(queue: "iap.validate", reason: "rejected", count: 1, time: nil),
            ])
        #expect(DeathRecord.all(inHeaders: "{}").isEmpty)
        #expect(DeathRecord.all(inHeaders: "not json").isEmpty)
    }
}
