import Foundation
import HTTPClient
import StorePlugins

/// Access tokens for a service account: an assertion traded at its token URI, the token
/// kept until five minutes before it expires, one exchange at a time however many calls
/// wait for it.
actor GoogleAccessTokens {
    struct Token: Sendable {
        var value: String
        var expiresAt: Date
    }

    let account: GoogleServiceAccount
    private let http: CurlHTTPClient
    private let now: @Sendable () -> Date
    private var current: Token?
    private var exchange: Task<Token, any Error>?
    /// How many exchanges were made (for tests and the log).
    private(set) var exchanges = 0

    /// A token is replaced once less than this is left of its life.
    static let refreshMargin: TimeInterval = 300

    init(account: GoogleServiceAccount, http: CurlHTTPClient, now: @escaping @Sendable () -> Date) {
        self.account = account
        self.http = http
        self.now = now
    }

    /// A token with more than ``refreshMargin`` left.
    func token() async throws(StoreCallError) -> Token {
        if let current, current.expiresAt.timeIntervalSince(now()) > Self.refreshMargin { return current }
        let task: Task<Token, any Error>
        if let exchange {
            task = exchange
        } else {
            task = Task { try await self.exchangeAssertion() }
            exchange = task
        }
        do {
            let token = try await task.value
            current = token
            exchange = nil
            return token
        } catch {
            exchange = nil
            throw error as? StoreCallError
                ?? StoreCallError.googlePlay(.unavailable, call: "token", message: "\(error)")
        }
    }

    /// Forgets the token Google just refused (401), so that the next call exchanges anew.
    func invalidate(_ token: Token) {
        if current?.value == token.value { current = nil }
    }

    private func exchangeAssertion() async throws -> Token {
        exchanges += 1
        let issuedAt = now()
        let assertion: GoogleOAuthAssertion
        do {
            assertion = try GoogleOAuthAssertion(account: account, issuedAt: issuedAt)
        } catch {
            throw StoreCallError.googlePlay(
                .unauthorized, call: "token", message: "the service account's key cannot sign")
        }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion.jwt)"
        let response: HTTPResponse
        do {
            response = try await http.execute(
                HTTPRequest(
                    method: .post, url: account.tokenURI,
                    headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8)))
        } catch {
            throw StoreCallError.googlePlay(
                error.isRetryable ? .unavailable : .invalidRequest, call: "token", message: error.description)
        }
        struct Answer: Decodable {
            var access_token: String?
            var expires_in: Int?
            var error: String?
            var error_description: String?
        }
        let answer = try? JSONDecoder().decode(Answer.self, from: response.bodyData)
        guard response.isSuccess else {
            // OAuth's own error shape: {"error": "invalid_grant", "error_description": "..."}.
            let reason = [answer?.error, answer?.error_description].compactMap { $0 }.joined(separator: ": ")
            let code: StoreCallError.Code =
                response.status >= 500 ? .unavailable : response.status == 429 ? .rateLimited : .unauthorized
            throw StoreCallError.googlePlay(
                code, call: "token", message: reason.isEmpty ? "HTTP \(response.status)" : String(reason.prefix(300)),
                status: response.status)
        }
        guard let value = answer?.access_token, !value.isEmpty, let seconds = answer?.expires_in, seconds > 0 else {
            throw StoreCallError.googlePlay(
                .malformedResponse, call: "token", message: "no access_token and expires_in")
        }
        return Token(value: value, expiresAt: issuedAt.addingTimeInterval(TimeInterval(seconds)))
    }
}
