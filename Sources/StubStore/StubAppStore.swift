import Crypto
import Foundation
import PipelineCore
import Synchronization

/// An Apple-compatible `verifyReceipt` endpoint that believes only the receipts it signed.
///
/// Holds the configuration, the counters and the little state the answers need (how often
/// each failing receipt was asked about, the seeded randomness). Serve it with
/// ``makeStubStoreApplication(store:host:port:onServerRunning:)``, or mount ``makeRouter()``.
///
/// ```swift
/// let store = StubAppStore(configuration: .init(sharedSecret: "s3cret"))
/// let receiptData = StubReceipt(bundleID: "com.example.game", transactions: [...])
///     .encoded(signingKey: store.configuration.signingKey)
/// ```
///
/// Answers follow Apple's order of checks: `21000` for a body that is not JSON, `21002` for
/// `receipt-data` that is missing or unreadable, `21003` for one not signed with
/// ``StubStoreConfiguration/signingKey``, `21007` for a sandbox receipt at production and
/// `21008` for the reverse, `21004` for a wrong shared secret, the receipt's own transient
/// status while it fails on purpose, and `0` with the receipt otherwise.
public final class StubAppStore: Sendable {
    /// How this store behaves.
    public let configuration: StubStoreConfiguration
    /// Signed transactions and notifications (StoreKit 2), under a CA made at start.
    public let storeKit: StubStoreKit
    /// The App Store Server API this store also serves (`/inApps/...`, `/sandbox/inApps/...`).
    public let serverAPI: StubServerAPI
    /// Google Play's token endpoint and Developer API, under `/google`.
    public let googlePlay: StubGooglePlay
    /// Stripe's API and webhooks, served under `/stripe` (see ``StubStripe``).
    public let stripe: StubStripe
    /// Huawei AppGallery's OAuth server, Order and Subscription services, under `/huawei`.
    public let huawei: StubHuawei
    /// Xiaomi's order query, under `/xiaomi`, and the notices it pushes.
    public let xiaomi: StubXiaomi
    /// Amazon's RVS, under `/amazon`, and the notifications SNS pushes.
    public let amazon: StubAmazon
    /// Every store's stub but Apple's, served beside it: one line a store.
    public var parts: [any StubStorePart] { [googlePlay, huawei, stripe, xiaomi, amazon] }
    private let state: Mutex<State>
    /// The PKCS #7 receipt authority, made on first use: RSA keys take a moment to generate.
    let pkcs7Authority = Mutex<ReceiptCertificateAuthority?>(nil)

    private struct State {
        var random: SplitMix64
        var stats = StubStoreStats()
        /// Verify attempts so far of receipts with ``StubReceipt/failFirst``, by digest.
        var attempts: [String: Int] = [:]
        /// Renewals Apple made since a receipt was issued, by original transaction id.
        var renewals: [String: [StubReceipt.Transaction]] = [:]
    }

    /// Creates a store.
    /// - Parameter configuration: Its signing key, shared secret and chaos.
    public init(configuration: StubStoreConfiguration = .init()) {
        self.configuration = configuration
        // Generating a P-256 key and two certificates fails only if the crypto library does.
        self.storeKit = try! StubStoreKit(bundleID: configuration.bundleID)
        self.serverAPI = StubServerAPI(
            configuration: configuration.serverAPI, bundleID: configuration.bundleID, history: storeKit.history,
            now: configuration.now)
        self.googlePlay = StubGooglePlay(now: configuration.now)
        self.stripe = StubStripe(now: configuration.now)
        self.huawei = StubHuawei(now: configuration.now)
        self.xiaomi = StubXiaomi(now: configuration.now)
        self.amazon = StubAmazon(now: configuration.now)
        let seed = configuration.seed ?? UInt64.random(in: .min ... .max)
        self.state = Mutex(State(random: SplitMix64(seed: seed)))
    }

    /// What has been answered so far.
    public var stats: StubStoreStats {
        state.withLock { $0.stats }
    }

    /// Signs `receipt` with this store's key, as `POST /stub/receipts` does.
    /// - Parameter receipt: The receipt to issue.
    /// - Returns: Its `receipt-data`.
    public func issue(_ receipt: StubReceipt) -> String {
        countMint()
        return receipt.encoded(signingKey: configuration.signingKey)
    }

    /// Counts a minted receipt, whatever its format.
    func countMint() {
        state.withLock { $0.stats.receiptsMinted += 1 }
    }

    /// Renews a subscription, as Apple does without the app: every later `verifyReceipt`
    /// answer for a receipt that holds `renewal.originalTransactionID` lists the renewal in
    /// `latest_receipt_info` (the receipt itself is unchanged, as Apple's is).
    /// - Parameter renewal: The new transaction, with the subscription's original id and its expiry.
    public func renew(_ renewal: StubReceipt.Transaction) {
        state.withLock { $0.renewals[renewal.originalTransactionID, default: []].append(renewal) }
    }

    // MARK: Answering

    /// What a request meets before it is verified: the chaos knobs, drawn per request.
    enum Fate: Equatable {
        case answer
        case unavailable
        case hang
    }

    /// Counts a request at `environment` and draws its fate.
    func admit(at environment: StubReceipt.Environment) -> Fate {
        state.withLock { state in
            state.stats[environment].requests += 1
            // Draw both every time, so one knob does not shift the other's sequence.
            let hang = Double.random(in: 0..<1, using: &state.random) < configuration.timeoutRate
            let fail = Double.random(in: 0..<1, using: &state.random) < configuration.errorRate
            if hang {
                state.stats[environment].hung += 1
                return .hang
            }
            if fail {
                state.stats[environment].unavailable += 1
                return .unavailable
            }
            return .answer
        }
    }

    /// The answer to a `verifyReceipt` request body at `environment`'s endpoint, counted in
    /// ``stats``.
    func verify(body: Data, at environment: StubReceipt.Environment) async -> StubVerifyResponse {
        let response = await answer(body: body, at: environment)
        state.withLock { $0.stats[environment].statuses[String(response.status), default: 0] += 1 }
        return response
    }

    private func answer(body: Data, at environment: StubReceipt.Environment) async -> StubVerifyResponse {
        func status(_ status: Int, isRetryable: Bool? = nil) -> StubVerifyResponse {
            StubVerifyResponse(status: status, environment: environment.rawValue, isRetryable: isRetryable)
        }
        guard let request = try? JSONDecoder().decode(StubVerifyRequest.self, from: body) else {
            return status(21000)
        }
        guard let receiptData = request.receiptData, !receiptData.isEmpty else {
            return status(21002)
        }
        let receipt: StubReceipt
        switch StubReceipt.decode(receiptData: receiptData, signingKey: configuration.signingKey) {
        case .success(let decoded): receipt = decoded
        case .failure(.malformed):
            // Not a stub receipt: perhaps a PKCS #7 receipt this store minted.
            switch await pkcs7Receipt(receiptData) {
            case .success(let minted): receipt = minted
            case .failure(let error): return status(error.status)
            }
        case .failure(let error): return status(error.status)
        }
        switch (receipt.environment, environment) {
        case (.sandbox, .production): return status(21007)
        case (.production, .sandbox): return status(21008)
        case (nil, _): return status(21002)
        default: break
        }
        if let secret = configuration.sharedSecret, request.password != secret {
            return status(21004)
        }
        if isFailing(receipt, receiptData: receiptData) {
            let code = receipt.transientStatus ?? 21100
            return status(code, isRetryable: (21100...21199).contains(code) ? true : nil)
        }
        let originals = Set(receipt.transactions.filter { $0.expiresDate != nil }.map(\.originalTransactionID))
        let renewals = state.withLock { state in originals.sorted().flatMap { state.renewals[$0] ?? [] } }
        return StubVerifyResponse.valid(
            receipt, receiptData: receiptData, excludeOldTransactions: request.excludeOldTransactions,
            requestDate: configuration.now(), renewals: renewals)
    }

    /// Whether `receipt` is still inside its transient window; counts this attempt.
    private func isFailing(_ receipt: StubReceipt, receiptData: String) -> Bool {
        if let until = receipt.transientUntil, configuration.now() < until {
            return true
        }
        guard let failFirst = receipt.failFirst, failFirst > 0 else { return false }
        let key = Data(SHA256.hash(data: Array(receiptData.utf8))).base64EncodedString()
        let attempt = state.withLock { state in
            state.attempts[key, default: 0] += 1
            return state.attempts[key]!
        }
        return attempt <= failFirst
    }

    /// A fresh transaction id in Apple's style: 16 digits, from the seeded randomness.
    func nextTransactionID() -> String {
        state.withLock { state in
            String(2_000_000_000_000_000 + UInt64.random(in: 0..<1_000_000_000_000_000, using: &state.random))
        }
    }
}

extension StubVerifyResponse {
    /// Status `0`: the receipt with its transactions, and for a receipt holding subscriptions
    /// `latest_receipt_info`, `latest_receipt` and `pending_renewal_info`, as Apple answers.
    /// `renewals` (made since the receipt was issued) appear in `latest_receipt_info` only.
    static func valid(
        _ receipt: StubReceipt, receiptData: String, excludeOldTransactions: Bool, requestDate: Date,
        renewals: [StubReceipt.Transaction] = []
    ) -> StubVerifyResponse {
        let isSandbox = receipt.environment == .sandbox
        let hasSubscriptions = receipt.transactions.contains { $0.expiresDate != nil }
        let inApp = receipt.transactions.map { InApp(transaction: $0, isSubscription: $0.expiresDate != nil) }
        var response = StubVerifyResponse(
            status: 0,
            environment: receipt.rawEnvironment,
            receipt: Receipt(
                receiptType: isSandbox ? "ProductionSandbox" : "Production",
                bundleID: receipt.bundleID,
                applicationVersion: receipt.applicationVersion,
                originalApplicationVersion: "1.0",
                receiptCreationDate: AppleDate(receipt.createdAt),
                requestDate: AppleDate(requestDate),
                inApp: inApp
            )
        )
        guard hasSubscriptions else { return response }
        // Newest first, as Apple sorts latest_receipt_info.
        let renewed = renewals.map { InApp(transaction: $0, isSubscription: true) }
        var latest = (inApp + renewed).sorted { $0.transaction.purchaseDate > $1.transaction.purchaseDate }
        if excludeOldTransactions {
            var seen = Set<String>()
            latest = latest.filter {
                $0.isSubscription && seen.insert($0.transaction.originalTransactionID).inserted
            }
        }
        var renewals: [PendingRenewal] = []
        var seenOriginals = Set<String>()
        for entry in latest where entry.isSubscription {
            if seenOriginals.insert(entry.transaction.originalTransactionID).inserted {
                renewals.append(
                    PendingRenewal(
                        productID: entry.transaction.productID,
                        originalTransactionID: entry.transaction.originalTransactionID))
            }
        }
        response.latestReceiptInfo = latest
        response.latestReceipt = receiptData
        response.pendingRenewalInfo = renewals
        return response
    }
}
