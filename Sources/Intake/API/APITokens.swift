import Crypto
import Foundation
import Logging
import PipelineCore
import Synchronization

/// The backend's bearer tokens, kept only as SHA-256 digests, each with the app it acts
/// for: from `IAP_API_TOKENS`, and from `IAP_API_TOKENS_FILE`, which is read again (at most
/// once per `recheckInterval`) so that tokens rotate without a restart: add the new token,
/// move the backends over, remove the old one. Both are the default app's; the other apps
/// of `IAP_APPS` bring theirs (fixed).
///
/// A file that becomes unreadable or malformed keeps the tokens read last, with a
/// warning; the process never ends up with no tokens at all by a typo.
public final class APITokens: Sendable {
    private struct State {
        var fileDigests: [[UInt8]]
        var fileContent: Data?
        var checked: ContinuousClock.Instant
    }

    /// A token presented and found: its digest (the rate limiter's key) and its app.
    struct Match {
        var digest: [UInt8]
        var app: AppScope
    }

    private let fixed: [(digest: [UInt8], app: AppScope)]
    /// The app of the file's tokens.
    private let defaultApp: AppScope
    private let file: String?
    private let recheckInterval: Duration
    private let logger: Logger
    private let state: Mutex<State>

    /// - Parameters:
    ///   - tokens, file: the default app's (`app`) tokens.
    ///   - others: every other app's tokens.
    /// - Throws: ``SettingError`` when there is no token at all, a token is shorter than 16
    ///   characters, a token is two apps', or the file cannot be read. Never repeats a token.
    public init(
        tokens: [String], file: String? = nil, app: AppScope = .single, others: [AppScope: [String]] = [:],
        recheckInterval: Duration = .seconds(1), logger: Logger = Logger(label: "iap.intake.tokens")
    ) throws(SettingError) {
        try Self.check(tokens, variable: "IAP_API_TOKENS")
        let fixed = [(app, tokens)] + others.sorted { ($0.key.id ?? "") < ($1.key.id ?? "") }.map { ($0.key, $0.value) }
        self.fixed = fixed.flatMap { app, tokens in tokens.map { (Self.digest($0), app) } }
        self.defaultApp = app
        self.file = file
        self.recheckInterval = recheckInterval
        self.logger = logger
        var fileDigests: [[UInt8]] = []
        var content: Data?
        if let file {
            let read = try Self.read(file)
            fileDigests = read.digests
            content = read.content
        }
        guard !self.fixed.isEmpty || !fileDigests.isEmpty else {
            throw SettingError(
                variable: "IAP_API_TOKENS", problem: "is required: comma-separated bearer tokens for the backend")
        }
        if let shared = Self.sharedApps(self.fixed, file: fileDigests, defaultApp: app).map({ [$0.0, $0.1].sorted() }) {
            throw SettingError(
                variable: "IAP_APPS",
                problem:
                    "apps \(shared[0]) and \(shared[1]) share an API token (IAP_API_TOKENS and IAP_API_TOKENS_FILE "
                    + "are the first app's): each must be one app's")
        }
        self.state = Mutex(State(fileDigests: fileDigests, fileContent: content, checked: .now))
    }

    /// Fixed tokens of the default app, taken as given (checked where they are read from settings).
    public init(unchecked tokens: [String]) {
        self.fixed = tokens.map { (Self.digest($0), AppScope.single) }
        self.defaultApp = .single
        self.file = nil
        self.recheckInterval = .seconds(1)
        self.logger = Logger(label: "iap.intake.tokens")
        self.state = Mutex(State(fileDigests: [], fileContent: nil, checked: .now))
    }

    /// The configured token `presented` is, with its app, or nil. Every digest is
    /// compared, whatever matches, so timing tells nothing.
    func match(_ presented: some StringProtocol) -> Match? {
        let digest = Self.digest(presented)
        var found: Match?
        for candidate in fixed + currentFileDigests().map({ ($0, defaultApp) })
        where constantTimeEqual(candidate.digest, digest) {
            found = Match(digest: candidate.digest, app: candidate.app)
        }
        return found
    }

    /// Two apps that share a token, by their ids (`the settings` for the single-app ones), or nil.
    private static func sharedApps(
        _ fixed: [(digest: [UInt8], app: AppScope)], file: [[UInt8]], defaultApp: AppScope
    ) -> (String, String)? {
        var owners: [[UInt8]: AppScope] = [:]
        for (digest, app) in fixed + file.map({ ($0, defaultApp) }) {
            if let owner = owners.updateValue(app, forKey: digest), owner != app {
                return (owner.id ?? "of the settings", app.id ?? "of the settings")
            }
        }
        return nil
    }

    private func currentFileDigests() -> [[UInt8]] {
        guard let file else { return [] }
        let now = ContinuousClock.now
        let (due, digests) = state.withLock { state in
            let due = now - state.checked >= recheckInterval
            if due { state.checked = now }
            return (due, state.fileDigests)
        }
        guard due else { return digests }
        let content = FileManager.default.contents(atPath: file)
        return state.withLock { state in
            guard content != state.fileContent else { return state.fileDigests }
            state.fileContent = content
            do {
                guard let content else {
                    throw SettingError(variable: "IAP_API_TOKENS_FILE", problem: "cannot read \(file)")
                }
                let digests = try Self.parse(content)
                if let shared = Self.sharedApps(fixed, file: digests, defaultApp: defaultApp) {
                    throw SettingError(
                        variable: "IAP_API_TOKENS_FILE",
                        problem: "holds a token of app \(shared.0), not \(shared.1)'s")
                }
                state.fileDigests = digests
                logger.notice(
                    "API tokens reloaded", metadata: ["file": "\(file)", "tokens": "\(state.fileDigests.count)"])
            } catch {
                logger.warning(
                    "API tokens file not reloaded; the previous tokens stay", metadata: ["problem": "\(error)"])
            }
            return state.fileDigests
        }
    }

    private static func read(_ file: String) throws(SettingError) -> (digests: [[UInt8]], content: Data) {
        guard let content = FileManager.default.contents(atPath: file) else {
            throw SettingError(variable: "IAP_API_TOKENS_FILE", problem: "cannot read \(file)")
        }
        return (try parse(content), content)
    }

    /// One token per line (commas also separate); blank lines and `#` comments are skipped.
    private static func parse(_ content: Data) throws(SettingError) -> [[UInt8]] {
        let tokens = String(decoding: content, as: UTF8.self).split(whereSeparator: { $0.isNewline || $0 == "," })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !tokens.isEmpty else {
            throw SettingError(variable: "IAP_API_TOKENS_FILE", problem: "holds no token")
        }
        try check(tokens, variable: "IAP_API_TOKENS_FILE")
        return tokens.map(digest)
    }

    private static func check(_ tokens: [String], variable: String) throws(SettingError) {
        if let short = tokens.first(where: { $0.count < 16 }) {
            throw SettingError(
                variable: variable, problem: "each token needs at least 16 characters (one has \(short.count))")
        }
    }

    private static func digest(_ token: some StringProtocol) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}
