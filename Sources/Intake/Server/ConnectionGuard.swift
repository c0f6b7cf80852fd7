import NIOCore
import NIOHTTP1

/// Sits in each connection's pipeline between NIO's HTTP/1 decoder and Hummingbird's codec,
/// where the HTTP version is still known, and closes doors the library leaves open:
///
/// - HTTP/1.0 without `Connection: keep-alive` (and HTTP/1.1 with `Connection: close`, in
///   any case) gets its connection closed after the response: the request is marked
///   `Connection: close`, which Hummingbird honours, and so is the response.
/// - A request the decoder refuses (headers over the limit, malformed) is answered in the
///   API's JSON error shape, 431 or 400, instead of an empty 400, and the connection closed.
/// - A head ``RequestHeadCheck`` refuses (Host, transfer coding) is answered 400 the same
///   way; nothing of its request reaches a handler.
/// - A body that breaks off (the client closes early, a bad chunk, the ``RequestDeadline``)
///   reaches its handler as an error, never as an end: Hummingbird takes a request stream
///   that simply ends for a whole body, so a cut body was processed (issue 25).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Reading {
        /// Between requests, or in a head the decoder has not finished.
        case idle
        /// A head went on to the handler; its body has not ended.
        case body
        /// Nothing more is taken from this connection: it closes once answered.
        case refusing
    }

    private var reading = Reading.idle
    /// For each request read and not yet answered, in order: whether to close after it.
    private var closeAfter: [Bool] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (reading, part) {
        case (.refusing, _):
            return
        case (_, .head(var head)):
            if let refusal = RequestHeadCheck.refusal(head) { return refuse(refusal, context: context) }
            let keepAlive = head.isKeepAlive
            if !keepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
            closeAfter.append(!keepAlive)
            reading = .body
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case (_, .end):
            reading = .idle
            context.triggerUserOutboundEvent(RequestDeadline.RequestRead(), promise: nil)
            context.fireChannelRead(data)
        case (_, .body):
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where closeAfter.first == true:
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            let close = closeAfter.first == true
            if !closeAfter.isEmpty { closeAfter.removeFirst() }
            guard close else { return context.write(data, promise: promise) }
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
        default:
            context.write(data, promise: promise)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError || error is RequestDeadline.Expired else {
            return context.fireErrorCaught(error)
        }
        switch reading {
        case .refusing:
            return
        case .body:
            // The handler reading the body learns that it broke off, and answers (if anyone
            // is left to hear it); the connection closes after that answer.
            endBody(with: RequestHeadCheck.brokenBody(error), context: context)
        case .idle where closeAfter.isEmpty:
            refuse(Self.answer(to: error), context: context)
        case .idle:
            // A response is still on its way: the next request's broken head ends the
            // connection after it.
            reading = .refusing
            closeAfter[closeAfter.count - 1] = true
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if reading == .body {
            endBody(with: RequestHeadCheck.brokenBody(HTTPParserError.invalidEOFState), context: context)
        }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if reading == .body, case .some(.inputClosed) = event as? ChannelEvent {
            endBody(with: RequestHeadCheck.brokenBody(HTTPParserError.invalidEOFState), context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func endBody(with error: APIError, context: ChannelHandlerContext) {
        reading = .refusing
        if !closeAfter.isEmpty { closeAfter[closeAfter.count - 1] = true }
        context.fireErrorCaught(error)
    }

    /// What a head that never reached a handler gets.
    private static func answer(to error: any Error) -> APIError {
        switch error {
        case let error as HTTPParserError where error == .headerOverflow:
            APIError(
                .init(code: 431, reasonPhrase: "Request Header Fields Too Large"), code: "headers_too_large",
                message: "the request's headers are larger than this server accepts")
        case is RequestDeadline.Expired: RequestHeadCheck.brokenBody(error)
        default: APIError(.badRequest, code: "malformed_request", message: "the request is not valid HTTP/1.1")
        }
    }

    /// Answers `refusal` itself, then closes: no handler sees this request. Behind a response
    /// still on its way, the connection just closes after it.
    private func refuse(_ refusal: APIError, context: ChannelHandlerContext) {
        reading = .refusing
        guard closeAfter.isEmpty else {
            closeAfter[closeAfter.count - 1] = true
            return
        }
        let body = refusal.body
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.count))
        headers.add(name: "connection", value: "close")
        let status = HTTPResponseStatus(statusCode: refusal.status.code, reasonPhrase: refusal.status.reasonPhrase)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))))
            .whenFailure { _ in }
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
