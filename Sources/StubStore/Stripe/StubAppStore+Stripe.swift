import Foundation
import Synchronization

/// Each stub store's Stripe, made on first use. Kept beside the store rather than in it so
/// that Stripe's stub stays in its own folder; a store lives as long as its tests.
private let stripes = Mutex<[ObjectIdentifier: StubStripe]>([:])

extension StubAppStore {
    /// Stripe's API and webhooks, served under `/stripe` (see ``StubStripe``).
    public var stripe: StubStripe {
        stripes.withLock { stripes in
            if let stripe = stripes[ObjectIdentifier(self)] { return stripe }
            let stripe = StubStripe(now: configuration.now)
            stripes[ObjectIdentifier(self)] = stripe
            return stripe
        }
    }
}
