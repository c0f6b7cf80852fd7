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

    @Test func aLingeringBatchGoesAsSoonAsItFills() async throws {
        let buffer = BatchBuffer<Int>()
        buffer.append(1)
        let started = ContinuousClock.now
        let batch = Task { try await buffer.next(max: 4, linger: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        buffer.append(contentsOf: [2, 3, 4, 5])
        #expect(try await batch.value == [1, 2, 3, 4])
        #expect(ContinuousClock.now - started < .seconds(30), "it waited out its linger")
        #expect(buffer.takeNow(max: 10) == [5])
    }

    @Test func aLingeringBatchGoesWhenItsTaskIsCancelledOrTheBufferFinishes() async throws {
        let started = ContinuousClock.now
        let cancelled = BatchBuffer<Int>()
        cancelled.append(1)
        let first = Task { try await cancelled.next(max: 4, linger: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        first.cancel()
        #expect(try await first.value == [1])

        let finished = BatchBuffer<Int>()
        finished.append(1)
        let second = Task { try await finished.next(max: 4, linger: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        finished.append(2)
        finished.finish()
        #expect(try await second.value == [1, 2])
        #expect(try await finished.next(max: 4, linger: .seconds(60)) == nil)
        #expect(ContinuousClock.now - started < .seconds(30), "a wait ran its whole linger")
    }
}
