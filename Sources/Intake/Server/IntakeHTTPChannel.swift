import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1
import PipelineCore

/// Hummingbird's HTTP/1 channel with the intake's limits: connections over the
/// ``ConnectionLimiter``'s caps closed at accept, an idle timeout that also ends
/// connections whose headers never finish (slowloris), a deadline for each whole request
/// (``RequestDeadline``), bounded headers, and a ``ConnectionGuard`` before the codec; each
/// connection handled on its own event loop.
struct IntakeHTTPChannel: ServerChildChannel {
    /// The intake's connection settings, as ``IntakeConfiguration`` gives them.
    struct Limits: Sendable {
        var idleTimeout: Duration
        var requestTimeout: Duration
        var maxHeaderBytes: Int
        var connections: ConnectionLimiter.Limits
    }

    /// Why a connection was not set up: over a cap, closed already.
    struct Refused: Error {}

    let inner: HTTP1Channel
    let requestTimeout: Duration
    let limiter: ConnectionLimiter

    init(responder: @escaping HTTPChannelHandler.Responder, limits: Limits) {
        inner = HTTP1Channel(
            responder: responder,
            configuration: .init(
                idleTimeout: .milliseconds(limits.idleTimeout.milliseconds),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes,
                    maxHeaderFieldCount: 100)))
        requestTimeout = limits.requestTimeout
        limiter = ConnectionLimiter(limits.connections)
    }

    /// Runs at accept, before the connection is registered or read from: a refused one
    /// costs no HTTP parser, no task, and is never heard.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        guard limiter.admit(channel) else { return channel.eventLoop.makeFailedFuture(Refused()) }
        let deadline = TimeAmount.milliseconds(requestTimeout.milliseconds)
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(RequestDeadline(timeout: deadline), position: .first)
            try pipeline.addHandler(
                ConnectionGuard(), position: .before(try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)))
            return value
        }
    }

    /// Handles the connection on its own event loop (``EventLoopTaskExecutor``): reading a
    /// request, running its handler up to the database and writing the answer wake no
    /// other thread.
    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// The intake's HTTP/1 server (see ``IntakeHTTPChannel``).
    static func intake(_ limits: IntakeHTTPChannel.Limits) -> HTTPServerBuilder {
        .init { responder in IntakeHTTPChannel(responder: responder, limits: limits) }
    }
}
