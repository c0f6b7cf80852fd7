import Logging

/// Wraps the stderr handler so that every line stays one line: control characters in a
/// message or a metadata value (a newline in a header someone sent, a terminal escape)
/// are escaped whatever the call site did. Call sites still bound untrusted values with
/// ``LogText/untrusted(_:limit:)``; this is the backstop.
///
/// It keeps the logger's metadata itself and hands it to the stream with each line that is
/// written: `StreamLogHandler` formats its whole metadata again whenever a key is set, and the
/// stages set a few per receipt or delivery (2-3 % of the notifier) on loggers that then
/// write nothing at their level. The line is the same: the stream sorts what it is given.
public struct EscapingLogHandler: LogHandler {
    public var inner: any LogHandler
    public var metadata: Logger.Metadata = [:]

    public init(inner: any LogHandler) {
        self.inner = inner
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(LogText.escapingControls(event.message.description))"
        // The call's own metadata wins over the logger's, as in swift-log's handlers.
        let merged = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        event.metadata = merged.isEmpty ? nil : merged.mapValues(Self.escaped)
        inner.log(event: event)
    }

    private static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(LogText.escapingControls(text))
        case .stringConvertible(let convertible): .string(LogText.escapingControls(convertible.description))
        case .array(let values): .array(values.map(escaped))
        case .dictionary(let values): .dictionary(values.mapValues(escaped))
        }
    }
}
