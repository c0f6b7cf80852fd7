import Database
import Hummingbird
import Logging
import PipelineCore
import Repositories
import SettlementWriter
import Synchronization

/// Every error leaves in the API's JSON shape: Hummingbird's own (404 for an unknown route,
/// with or without a token; 405; 413 from a body limit) and anything unexpected, which is
/// a 500 that says nothing about the inside.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    /// The router's routes, once registered: a known path asked with another method is a
    /// 405 with `Allow`, not the 404 Hummingbird gives every request it cannot route.
    let routes: RouteMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as any HTTPResponseError {
            if error.status == .notFound, case let methods = routes.methods(forPath: request.uri.path), !methods.isEmpty
            {
                var refusal = Self.apiError(status: .methodNotAllowed)
                refusal.allow = methods.map(\.rawValue)
                throw refusal
            }
            throw Self.apiError(status: error.status)
        } catch SQLError.unstorable(let message) {
            // Input no check before the database caught: refused there, nothing stored.
            throw APIError(
                .badRequest, code: "unstorable_value",
                message: "the request holds a value that cannot be stored: \(message)")
        } catch SQLError.decoding(let message) {
            // The server's fault, named so that an operator can repair it (`iap account repair`).
            logger.error("stored state cannot be read", metadata: ["error": "\(message)"])
            throw APIError(
                .internalServerError, code: "unreadable_state",
                message: "stored state cannot be read (\(message)); an operator can repair it")
        } catch {
            logger.error("request failed", metadata: ["error": "\(LogText.untrusted("\(error)", limit: 512))"])
            throw APIError(.internalServerError, code: "internal_error", message: "the request failed; retry later")
        }
    }

    static func apiError(status: HTTPResponse.Status) -> APIError {
        switch status {
        case .notFound: APIError.notFound
        case .methodNotAllowed:
            APIError(.methodNotAllowed, code: "method_not_allowed", message: "this resource does not take that method")
        case .contentTooLarge:
            APIError(.contentTooLarge, code: "payload_too_large", message: "request body is too large")
        case .unauthorized: APIError.unauthorized
        default:
            APIError(
                status, code: status.code < 500 ? "bad_request" : "internal_error",
                message: status.reasonPhrase.isEmpty ? "the request failed" : status.reasonPhrase.lowercased())
        }
    }
}

/// The methods of a router's routes, set once every route is registered.
final class RouteMethods: Sendable {
    private let table = Mutex<AllowedMethods?>(nil)

    func set(_ methods: AllowedMethods) { table.withLock { $0 = methods } }

    func methods(forPath path: String) -> [HTTPRequest.Method] {
        table.withLock { $0?.methods(forPath: path) ?? [] }
    }
}
