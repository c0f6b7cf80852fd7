import AppStore
import AppleStore
import Foundation
import StubStore
import Testing

/// The window a reconciliation reads, and what it reads of a notification before verifying it.
@Suite struct ReconciliationWindowTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aScheduledRunStartsAnHourBeforeTheLastEnd_orAWeekBack_neverPast180Days() {
        let lastEnd = Self.now.addingTimeInterval(-7200)
        #expect(
            ReconciliationWindow.scheduled(coveredUntil: lastEnd, now: Self.now)
                == ReconciliationWindow(start: lastEnd.addingTimeInterval(-3600), end: Self.now))
        #expect(
            ReconciliationWindow.scheduled(coveredUntil: nil, now: Self.now).start
                == Self.now.addingTimeInterval(-7 * 86_400))
        let longAgo = Self.now.addingTimeInterval(-400 * 86_400)
        let clamped = ReconciliationWindow.scheduled(coveredUntil: longAgo, now: Self.now)
        #expect(clamped.start > Self.now.addingTimeInterval(-180 * 86_400))
        #expect(clamped.end == Self.now)
    }

    @Test(arguments: [
        ("7d", -7 * 86_400.0), ("36h", -36 * 3_600.0), ("90m", -90 * 60.0), ("1d", -86_400.0),
    ])
    func relativeTimesCountBackFromNow(_ text: String, _ offset: TimeInterval) throws {
        #expect(try ReconciliationWindow.parse(text, now: Self.now) == Self.now.addingTimeInterval(offset))
    }

    @Test func anISODateIsTakenAsIs() throws {
        #expect(
            try ReconciliationWindow.parse("2027-01-15T08:00:00Z", now: Self.now)
                == Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test(arguments: ["", "7", "d", "-7d", "7y", "0d", "yesterday", "2027-13-40", "7d; rm -rf /"])
    func anythingElseIsRefusedWithTheFormsItMayTake(_ text: String) {
        #expect {
            try ReconciliationWindow.parse(text, now: Self.now)
        } throws: { error in
            "\(error)".contains("is not a time: use an age")
        }
    }

    @Test func anOperatorsWindowMustEndAfterItStarts_andReachNoFurtherBackThanAppleKeeps() throws {
        let week = Self.now.addingTimeInterval(-7 * 86_400)
        #expect(
            try ReconciliationWindow.requested(since: week, until: nil, now: Self.now)
                == ReconciliationWindow(start: week, end: Self.now))
        // An end in the future is now: the history has nothing later
        #expect(
            try ReconciliationWindow.requested(since: week, until: Self.now.addingTimeInterval(60), now: Self.now).end
                == Self.now)
        #expect(throws: ReconciliationError.self) {
            try ReconciliationWindow.requested(
                since: Self.now.addingTimeInterval(-181 * 86_400), until: nil, now: Self.now)
        }
        #expect(throws: ReconciliationError.self) {
            try ReconciliationWindow.requested(since: week, until: week, now: Self.now)
        }
    }

    @Test func aNotificationsUUIDAndTypeAreReadBeforeItIsVerified_andGarbageIsNone() throws {
        let store = try StubStoreKit(bundleID: "com.example.game")
        let signed = store.signNotification(
            type: .refund, transaction: StubTransaction(productID: "com.example.coins100"), uuid: "u-1")
        #expect(NotificationPeek(signed)?.notificationUUID == "u-1")
        #expect(NotificationPeek(signed)?.notificationType == "REFUND")
        for garbage in ["", "a.b", "a.b.c", "..", "e30.e30.e30", String(repeating: "x.", count: 3)] {
            #expect(NotificationPeek(garbage) == nil)
        }
    }
}
