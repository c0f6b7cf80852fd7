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
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// For each request read and not yet answered, in order: whether to close after it.
    private var closeAfter: [Bool] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        let keepAlive = head.isKeepAlive
        if !keepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
        closeAfter.append(!keepAlive)
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where closeAfter.first == true:
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            if !closeAfter.isEmpty { closeAfter.removeFirst() }
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        // Mid-request (a broken body) the application owns the answer: just end the connection.
        guard closeAfter.isEmpty else { return context.close(promise: nil) }
        let answer =
            parserError == .headerOverflow
            ? APIError(
                .init(code: 431, reasonPhrase: "Request Header Fields Too Large"), code: "headers_too_large",
                message: "the request's headers are larger than this server accepts")
            : APIError(.badRequest, code: "malformed_request", message: "the request is not valid HTTP/1.1")
        let body = answer.body
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.count))
        headers.add(name: "connection", value: "close")
        let status = HTTPResponseStatus(statusCode: answer.status.code, reasonPhrase: answer.status.reasonPhrase)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))))
            .whenFailure { _ in }
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
