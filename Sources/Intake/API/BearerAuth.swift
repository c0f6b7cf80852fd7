import Crypto
import Hummingbird

/// Lets a request through only with `Authorization: Bearer <token>` for a configured token.
struct BearerAuth<Context: RequestContext>: RouterMiddleware {
    /// Digests, so that comparing takes the same time whatever the token's prefix.
    private let digests: [[UInt8]]

    init(tokens: [String]) {
        digests = tokens.map { Array(SHA256.hash(data: Array($0.utf8))) }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let header = request.headers[.authorization], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { throw APIError.unauthorized }
        let presented = Array(SHA256.hash(data: Array(header.dropFirst(7).utf8)))
        var matched = false
        for digest in digests where digest == presented { matched = true }
        guard matched else { throw APIError.unauthorized }
        return try await next(request, context)
    }
}
