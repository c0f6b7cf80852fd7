import Testing

@testable import Broker

@Suite struct AckCoalescerTests {
    @Test func contiguousAcksFromTheOldestBecomeOneMultipleAck() {
        var coalescer = AckCoalescer()
        for tag in 1...5 { coalescer.delivered(UInt64(tag)) }
        for tag in [3, 1, 2] { coalescer.ack(UInt64(tag)) }
        #expect(coalescer.flush() == [.ack(tag: 3, multiple: true)])
    }

    @Test func acksBehindAnUnackedTagGoOneByOne() {
        var coalescer = AckCoalescer()
        for tag in 1...5 { coalescer.delivered(UInt64(tag)) }
        coalescer.ack(2)
        coalescer.ack(4)
        #expect(coalescer.flush() == [.ack(tag: 2, multiple: false), .ack(tag: 4, multiple: false)])
        // Tag 1 is still outstanding: acking it and 3 now covers 1...3 at once
        coalescer.ack(1)
        coalescer.ack(3)
        #expect(coalescer.flush() == [.ack(tag: 3, multiple: true)])
        coalescer.ack(5)
        #expect(coalescer.flush() == [.ack(tag: 5, multiple: false)])
    }

    @Test func aNackInTheMiddleIsNeverCoveredByALaterMultipleAck() {
        var coalescer = AckCoalescer()
        for tag in 1...4 { coalescer.delivered(UInt64(tag)) }
        coalescer.settledDirectly(2, multiple: false)
        coalescer.ack(1)
        coalescer.ack(3)
        coalescer.ack(4)
        #expect(coalescer.flush() == [.ack(tag: 4, multiple: true)])
    }

    @Test func aCallersMultipleAckSettlesEverythingBelowIt() {
        var coalescer = AckCoalescer()
        for tag in 1...6 { coalescer.delivered(UInt64(tag)) }
        coalescer.settledDirectly(4, multiple: true)
        coalescer.ack(6)
        #expect(coalescer.flush() == [.ack(tag: 6, multiple: false)])
        coalescer.ack(5)
        #expect(coalescer.flush() == [.ack(tag: 5, multiple: false)])
    }
}
