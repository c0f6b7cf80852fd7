import Logging
import PipelineCore

/// Wraps the stderr handler so that every line stays one line: control characters in a
/// message or a metadata value (a newline in a header someone sent, a terminal escape)
/// are escaped whatever the call site did. Call sites still bound untrusted values with
/// ``LogText/untrusted(_:limit:)``; this is the backstop.
struct EscapingLogHandler: LogHandler {
    var inner: any LogHandler

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(LogText.escapingControls(event.message.description))"
        event.metadata = event.metadata?.mapValues(Self.escaped)
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
