import Hummingbird
import PipelineCore

/// Lets a request through only with `Authorization: Bearer <token>` for a configured token,
/// and only as often as the token's rate limit allows (429 with `Retry-After` beyond it).
/// The request then acts for the token's app.
struct BearerAuth<Context: AppRequestContext>: RouterMiddleware {
    let tokens: APITokens
    /// Buckets by token digest: one backend's flood does not starve another's.
    let limiter: RateLimiter<[UInt8]>?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let header = request.headers[.authorization], header.count > 7,
            header.prefix(7).lowercased() == "bearer ", let found = tokens.match(header.dropFirst(7))
        else { throw APIError.unauthorized }
        if let retryAfter = limiter?.take(found.digest).retryAfterSeconds {
            throw APIError.rateLimited(retryAfter: retryAfter)
        }
        var context = context
        context.app = found.app
        return try await next(request, context)
    }
}
