import Foundation
import Synchronization

/// Hands out an ``AppStoreJWT`` and reuses it until shortly before it expires.
///
/// Signing costs little, but thousands of requests a second need not sign thousands of
/// tokens. A token is replaced once less than ``refreshMargin`` of its life is left, so one
/// that reaches Apple is never about to expire on the way.
///
/// ```swift
/// let tokens = try AppStoreJWTCache(key: key)
/// let bearer = try tokens.token().token
/// ```
public final class AppStoreJWTCache: Sendable {
    /// Whose tokens.
    public let key: AppStoreServerAPIKey
    /// How long each token lives.
    public let lifetime: Duration
    /// How much life a token must have left to be handed out again: a fifth of ``lifetime``,
    /// at most one minute.
    public let refreshMargin: Duration
    private let now: @Sendable () -> Date
    private let current: Mutex<AppStoreJWT?>

    /// Creates a cache and signs its first token, so that a key or lifetime that cannot work
    /// fails here, at start.
    /// - Parameters:
    ///   - key: Whose tokens.
    ///   - lifetime: How long each token lives; at most 60 minutes.
    ///   - now: The clock.
    /// - Throws: ``AppStoreServerAPIConfigurationError`` for a lifetime out of range or a key that
    ///   cannot sign.
    public init(
        key: AppStoreServerAPIKey, lifetime: Duration = AppStoreJWT.defaultLifetime,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(AppStoreServerAPIConfigurationError) {
        let first = try AppStoreJWT(key: key, issuedAt: now(), lifetime: lifetime)
        self.key = key
        self.lifetime = lifetime
        self.refreshMargin = min(.seconds(60), lifetime / 5)
        self.now = now
        self.current = Mutex(first)
    }

    /// A token with more than ``refreshMargin`` of its life left: the cached one, or a new one.
    /// - Throws: ``AppStoreServerAPIConfigurationError`` only if signing fails, which the
    ///   initializer already tried.
    public func token() throws(AppStoreServerAPIConfigurationError) -> AppStoreJWT {
        let now = self.now()
        let margin =
            TimeInterval(refreshMargin.components.seconds)
            + TimeInterval(refreshMargin.components.attoseconds) / 1e18
        return try current.withLock { (cached: inout AppStoreJWT?) throws(AppStoreServerAPIConfigurationError) in
            if let token = cached, token.expiresAt.timeIntervalSince(now) > margin,
                token.issuedAt.timeIntervalSince(now) <= 1
            {
                return token
            }
            let fresh = try AppStoreJWT(key: key, issuedAt: now, lifetime: lifetime)
            cached = fresh
            return fresh
        }
    }
}
