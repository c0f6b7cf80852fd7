import PipelineCore
import Testing

struct BatchBufferTests {
    @Test func aBatchThatIsNotFullTakesWhatArrivesWhileItLingers() async throws {
        let buffer = BatchBuffer<Int>()
        buffer.append(1)
        let batch = Task { try await buffer.next(max: 10, linger: .milliseconds(300)) }
        try await Task.sleep(for: .milliseconds(50))
        buffer.append(contentsOf: [2, 3])
        #expect(try await batch.value == [1, 2, 3])
    }

    @Test func aFullBatchIsHandedOutWithoutLingering() async throws {
        let buffer = BatchBuffer<Int>()
        buffer.append(contentsOf: Array(0..<12))
        let started = ContinuousClock.now
        let batch = try await buffer.next(max: 10, linger: .seconds(30))
        #expect(batch == Array(0..<10))
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(buffer.takeNow(max: 10) == [10, 11])
    }
}
