import Logging
import Synchronization
import Testing

@testable import PipelineCore

/// The handler every process logs through: lines stay one line, the logger's metadata
/// reaches each line written (escaped too), and setting a key costs the stream nothing.
struct EscapingLogHandlerTests {
    /// What reached the stream, and how often the stream's own metadata was set.
    private final class Stream: Sendable {
        let events = Mutex<[LogEvent]>([])
        let metadataSets = Atomic<Int>(0)
        var written: [LogEvent] { events.withLock { $0 } }
    }

    /// Stands for `StreamLogHandler`, which formats its metadata again on every set.
    private struct Inner: LogHandler {
        let stream: Stream
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:] {
            didSet { stream.metadataSets.add(1, ordering: .relaxed) }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { stream.events.withLock { $0.append(event) } }
    }

    private func logger(_ stream: Stream) -> Logger {
        Logger(label: "test") { _ in EscapingLogHandler(inner: Inner(stream: stream)) }
    }

    @Test func theLoggersMetadataReachesEachLineEscapedAndTheCallsOwnWins() throws {
        let stream = Stream()
        var logger = logger(stream)
        logger[metadataKey: "receipt_id"] = "r-1\nforged"
        logger[metadataKey: "attempt"] = "1"
        logger.info("delivered\u{1b}[2J", metadata: ["attempt": "2", "status": "200"])
        let event = try #require(stream.written.first)
        #expect(event.message.description == "delivered\\u{1B}[2J")
        #expect(event.metadata?["receipt_id"]?.description == "r-1\\nforged")
        #expect(event.metadata?["attempt"]?.description == "2", "the call's metadata wins")
        #expect(event.metadata?["status"]?.description == "200")
        #expect(logger[metadataKey: "receipt_id"]?.description == "r-1\nforged", "kept as set, escaped when written")
    }

    @Test func settingAKeyLeavesTheStreamAloneAndEachCopyKeepsItsOwn() {
        let stream = Stream()
        var logger = logger(stream)
        for index in 0..<100 { logger[metadataKey: "id"] = "\(index)" }
        logger.debug("below the level")
        #expect(stream.written.isEmpty)
        #expect(stream.metadataSets.load(ordering: .relaxed) == 0)
        logger.info("plain")
        #expect(stream.written.count == 1)
        #expect(stream.written.last?.metadata?["id"]?.description == "99")
        let copy = logger
        logger[metadataKey: "id"] = nil
        logger.info("no metadata")
        #expect(stream.written.last?.metadata == nil)
        copy.info("the copy keeps its own")
        #expect(stream.written.last?.metadata?["id"]?.description == "99")
    }
}
