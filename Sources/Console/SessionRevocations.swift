import Crypto
import Foundation
import Synchronization

/// Sessions ended by a logout before their expiry: the signed cookie would otherwise stay
/// valid until then, and so would its CSRF token. Kept by digest, forgotten once the
/// session would have expired anyway.
///
/// In memory: a logout ends the session in the intake process that served it. Behind a
/// load balancer with several intakes, keep console traffic on one (sticky sessions).
final class SessionRevocations: Sendable {
    private let revoked = Mutex<[[UInt8]: Date]>([:])
    private let maxEntries: Int

    init(maxEntries: Int = 100_000) {
        self.maxEntries = maxEntries
    }

    func revoke(_ session: ConsoleSession, now: Date) {
        revoked.withLock { revoked in
            if revoked.count >= maxEntries { revoked = revoked.filter { $0.value > now } }
            // Still full of live sessions: the oldest-expiring are the least dangerous to forget.
            if revoked.count >= maxEntries, let first = revoked.min(by: { $0.value < $1.value }) {
                revoked[first.key] = nil
            }
            revoked[Self.digest(session.token)] = session.expires
        }
    }

    func isRevoked(_ token: String) -> Bool {
        revoked.withLock { $0[Self.digest(token)] != nil }
    }

    private static func digest(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}
