import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1
import PipelineCore

/// Hummingbird's HTTP/1 channel with the intake's limits: an idle timeout that also ends
/// connections whose headers never finish (slowloris), bounded headers, and a
/// ``ConnectionGuard`` before the codec.
struct IntakeHTTPChannel: ServerChildChannel {
    let inner: HTTP1Channel

    init(responder: @escaping HTTPChannelHandler.Responder, idleTimeout: Duration, maxHeaderBytes: Int) {
        inner = HTTP1Channel(
            responder: responder,
            configuration: .init(
                idleTimeout: .milliseconds(idleTimeout.milliseconds),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: maxHeaderBytes, maxHeaderListSize: maxHeaderBytes, maxHeaderFieldCount: 100)))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let codec = try channel.pipeline.syncOperations.handler(type: HTTP1ToHTTPServerCodec.self)
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(), position: .before(codec))
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// The intake's HTTP/1 server (see ``IntakeHTTPChannel``).
    static func intake(idleTimeout: Duration, maxHeaderBytes: Int) -> HTTPServerBuilder {
        .init { responder in
            IntakeHTTPChannel(responder: responder, idleTimeout: idleTimeout, maxHeaderBytes: maxHeaderBytes)
        }
    }
}
