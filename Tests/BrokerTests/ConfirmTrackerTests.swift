import Testing

@testable import Broker

@Suite struct ConfirmTrackerTests {
    @Test func multipleAckSettlesEveryTagUpToIt() {
        var tracker = ConfirmTracker<Int>()
        for tag in 1...5 { tracker.add(tag: UInt64(tag), waiter: tag) }

        let settled = tracker.ack(tag: 3, multiple: true)

        #expect(settled.map(\.0) == [1, 2, 3])
        #expect(tracker.pending == 2)
    }

    @Test func singleAckOutOfOrderSettlesOnlyThatTag() {
        var tracker = ConfirmTracker<Int>()
        for tag in 1...3 { tracker.add(tag: UInt64(tag), waiter: tag) }

        #expect(tracker.ack(tag: 2, multiple: false).map(\.0) == [2])
        #expect(tracker.ack(tag: 3, multiple: true).map(\.0) == [1, 3])
        #expect(tracker.pending == 0)
    }

    @Test func returnedMessageFailsWhenItsAckArrives() {
        var tracker = ConfirmTracker<Int>()
        tracker.add(tag: 1, waiter: 1)
        tracker.add(tag: 2, waiter: 2)

        tracker.markReturned(tag: 2, code: 312, text: "NO_ROUTE")
        let settled = tracker.ack(tag: 2, multiple: true)

        #expect(settled.count == 2)
        #expect((try? settled[0].1.get()) != nil)
        #expect(throws: PublishError.returned(code: 312, text: "NO_ROUTE")) { try settled[1].1.get() }
    }

    @Test func nackFailsWithNacked() {
        var tracker = ConfirmTracker<Int>()
        tracker.add(tag: 7, waiter: 7)
        let settled = tracker.nack(tag: 7, multiple: false)
        #expect(throws: PublishError.nacked) { try settled[0].1.get() }
    }

    @Test func failAllReportsEveryUnconfirmedPublishOnce() {
        var tracker = ConfirmTracker<Int>()
        for tag in 1...4 { tracker.add(tag: UInt64(tag), waiter: tag) }
        _ = tracker.ack(tag: 1, multiple: false)

        let failed = tracker.failAll(.unconfirmed(reason: "gone"))

        #expect(failed.map(\.0) == [2, 3, 4])
        #expect(tracker.pending == 0)
        #expect(tracker.ack(tag: 4, multiple: true).isEmpty)
    }

    @Test func manyConfirmsStayCorrectAcrossCompaction() {
        var tracker = ConfirmTracker<Int>()
        var settled = 0
        for tag in 1...20_000 {
            tracker.add(tag: UInt64(tag), waiter: tag)
            if tag % 7 == 0 { settled += tracker.ack(tag: UInt64(tag), multiple: true).count }
        }
        settled += tracker.ack(tag: 20_000, multiple: true).count
        #expect(settled == 20_000)
        #expect(tracker.pending == 0)
    }
}
