import Foundation
import PipelineCore
import Testing

struct TimeOrderedIDTests {
    @Test func isAVersion7UUIDInLowerCaseWithTheTimeInItsFirst48Bits() throws {
        let moment = Date(timeIntervalSince1970: 1_763_925_217.123)
        let id = TimeOrderedID.make(at: moment)
        #expect(id.count == 36)
        #expect(id == id.lowercased())
        let uuid = try #require(UUID(uuidString: id))
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 7, "version 7")
        #expect(bytes[8] >> 6 == 0b10, "RFC 9562 variant")
        let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_763_925_217_123)
    }

    @Test func idsOfLaterMillisecondsSortAfterEarlierOnes() {
        let ids = (0..<2_000).map {
            TimeOrderedID.make(at: Date(timeIntervalSince1970: Double(1_763_925_217_000 + $0) / 1000))
        }
        let outOfOrder = zip(ids, ids.dropFirst()).filter { $0 >= $1 }.count
        #expect(outOfOrder == 0)
    }

    @Test func idsOfOneMillisecondAreStillDistinct() {
        let moment = Date()
        let ids = (0..<10_000).map { _ in TimeOrderedID.make(at: moment) }
        #expect(Set(ids).count == ids.count)
    }

    @Test func theLeastIDOfAMillisecondSortsBeforeEveryIDMadeThenOrLaterAndAfterEveryEarlierOne() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let milliseconds = 1_700_000_000_000 + Int64.random(in: 0..<100_000_000_000, using: &generator)
            let moment = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let least = TimeOrderedID.least(at: moment)
            let later = Date(timeIntervalSince1970: Double(milliseconds + .random(in: 0..<5_000)) / 1000)
            let earlier = Date(timeIntervalSince1970: Double(milliseconds - .random(in: 1..<5_000)) / 1000)
            #expect(TimeOrderedID.make(at: moment) >= least)
            #expect(TimeOrderedID.make(at: later) >= least)
            #expect(TimeOrderedID.make(at: earlier) < least)
        }
    }
}
