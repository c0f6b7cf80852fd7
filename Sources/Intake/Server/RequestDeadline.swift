import NIOCore

/// A deadline for reading each whole request, headers and body together, from its first
/// byte: the idle timeout starts again with every byte, so a body trickled one byte every
/// 10 s held a connection for ever (issue 25). First in the pipeline, where bytes are still
/// bytes; ``ConnectionGuard`` says when a request has been read whole (``RequestRead``).
/// At the deadline it raises ``Expired`` through the pipeline, for the guard to answer.
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    /// Sent outbound by the guard once a request's end is read.
    struct RequestRead {}

    /// The deadline passed with a request unfinished.
    struct Expired: Error {}

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?
    private var expired = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The first bytes of a request start its clock; later ones do not move it.
        if timer == nil, !expired {
            let loopBound = context.loopBound
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                timer = nil
                expired = true
                loopBound.value.fireErrorCaught(Expired())
            }
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is RequestRead else { return context.triggerUserOutboundEvent(event, promise: promise) }
        timer?.cancel()
        timer = nil
        promise?.succeed()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}
