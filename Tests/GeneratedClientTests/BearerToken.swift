import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the backend's API token with every request, as the spec's `apiToken` scheme says
/// (`Authorization: Bearer <token>`): the generated client leaves authentication to a middleware.
struct BearerToken: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}
