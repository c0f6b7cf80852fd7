import Foundation
import HTTPClient
import StorePlugins

/// The app-level access token, from Huawei's OAuth server (`client_credentials`): kept until
/// five minutes before it expires, fetched once however many calls wait for it. Huawei
/// limits how often tokens may be asked for, so every call shares this one.
/// https://developer.huawei.com/consumer/en/doc/HMSCore-Guides/open-platform-oauth-0000001050123437
actor HuaweiAccessTokens {
    struct Token: Sendable {
        var value: String
        var expiresAt: Date

        /// `Authorization: Basic base64("APPAT:" + token)`, as the IAP servers take it.
        var authorization: String { "Basic " + Data("APPAT:\(value)".utf8).base64EncodedString() }
    }

    private let oauthURL: String
    private let clientID: String
    private let clientSecret: String
    private let now: @Sendable () -> Date
    private var current: Token?
    private var fetch: Task<Token, any Error>?
    /// How many tokens were fetched (for tests and the log).
    private(set) var fetches = 0

    /// A token is replaced once less than this is left of its life.
    static let refreshMargin: TimeInterval = 300

    init(oauthURL: String, clientID: String, clientSecret: String, now: @escaping @Sendable () -> Date) {
        self.oauthURL = oauthURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.now = now
    }

    /// A token with more than ``refreshMargin`` left, fetched over `http` when needed.
    func token(http: CurlHTTPClient) async throws(StoreCallError) -> Token {
        if let current, current.expiresAt.timeIntervalSince(now()) > Self.refreshMargin { return current }
        let task: Task<Token, any Error>
        if let fetch {
            task = fetch
        } else {
            task = Task { try await self.fetchToken(http: http) }
            fetch = task
        }
        do {
            let token = try await task.value
            current = token
            fetch = nil
            return token
        } catch {
            fetch = nil
            throw error as? StoreCallError ?? StoreCallError.huawei(.unavailable, call: "token", message: "\(error)")
        }
    }

    /// Forgets the token Huawei just refused (401), so that the next call fetches anew.
    func invalidate(_ token: Token) {
        if current?.value == token.value { current = nil }
    }

    private func fetchToken(http: CurlHTTPClient) async throws -> Token {
        fetches += 1
        let askedAt = now()
        let form =
            "grant_type=client_credentials&client_id=\(Self.escape(clientID))"
            + "&client_secret=\(Self.escape(clientSecret))"
        let response: HTTPResponse
        do {
            response = try await http.execute(
                HTTPRequest(
                    method: .post, url: oauthURL,
                    headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8),
                    timeout: .seconds(10)))
        } catch {
            throw StoreCallError.huawei(
                error.isRetryable ? .unavailable : .invalidRequest, call: "token", message: error.description)
        }
        struct Answer: Decodable {
            var access_token: String?
            var expires_in: Int?
            var error: Int?
            var sub_error: Int?
            var error_description: String?
        }
        let answer = try? JSONDecoder().decode(Answer.self, from: response.bodyData)
        guard response.isSuccess else {
            // Huawei's OAuth errors: {"error": 1101, "sub_error": 20003, "error_description": "..."};
            // the secret is never echoed into the message.
            let parts = [
                answer?.error.map { "error \($0)" }, answer?.sub_error.map { "sub_error \($0)" },
                answer?.error_description,
            ].compactMap { $0 }
            let code: StoreCallError.Code =
                response.status >= 500 ? .unavailable : response.status == 429 ? .rateLimited : .unauthorized
            throw StoreCallError.huawei(
                code, call: "token",
                message: parts.isEmpty ? "HTTP \(response.status)" : String(parts.joined(separator: ": ").prefix(300)),
                status: response.status,
                retryAfter: response.header("Retry-After").flatMap { Int($0) }.map { .seconds($0) })
        }
        guard let value = answer?.access_token, !value.isEmpty, let seconds = answer?.expires_in, seconds > 0 else {
            throw StoreCallError.huawei(.malformedResponse, call: "token", message: "no access_token and expires_in")
        }
        return Token(value: value, expiresAt: askedAt.addingTimeInterval(TimeInterval(seconds)))
    }

    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
