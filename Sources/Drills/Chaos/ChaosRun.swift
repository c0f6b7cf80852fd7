/// What a chaos run (`iap-lab chaos`) submitted and what the pipeline was left holding once it
/// was quiet: the two inputs of ``ChaosJudge``. Plain values, so that the judge can be
/// tested on a tampered copy without running a pipeline.
public enum ChaosKind: String, CaseIterable, Codable, Hashable, Sendable {
    /// 100 coins (`com.example.coins100`): credited.
    case coins
    /// 10 gems (`com.example.gems10`): credited.
    case gems
    /// A month of `vip` (`com.example.vip.monthly`): credited, the account holds `vip`.
    case subscription
    /// A purchase Apple had refunded before it was verified: rejected, `refunded`.
    case refunded
    /// A receipt of another app: rejected.
    case foreignBundle = "foreign_bundle"
    /// Another receipt carrying the transaction of an earlier `coins` one of the same
    /// account: of the two, exactly one is credited and the other is rejected `already_credited`.
    case replay
    /// 100 coins paid with Xiaomi's game payments, an order the stub's order query answers: credited.
    case xiaomi
    /// 100 coins bought on the Amazon Appstore, a receipt the stub's RVS answers: credited.
    case amazon
}

/// One receipt the load driver submitted.
public struct ChaosSubmission: Hashable, Sendable {
    public var index: Int
    public var kind: ChaosKind
    public var accountID: String
    /// For a replay, the index of the submission whose transaction it carries again.
    public var replayOf: Int?
    /// The intake's receipt id once it answered 2xx; nil when it never did.
    public var receiptID: String?
    /// The 4xx answer that ended the submission, if one did (a violation).
    public var refusal: String?

    public init(
        index: Int, kind: ChaosKind, accountID: String, replayOf: Int? = nil, receiptID: String? = nil,
        refusal: String? = nil
    ) {
        self.index = index
        self.kind = kind
        self.accountID = accountID
        self.replayOf = replayOf
        self.receiptID = receiptID
        self.refusal = refusal
    }
}

/// The pipeline's state at quiescence, read from its database, its broker and the webhook
/// receiver.
public struct ChaosObservations: Sendable {
    public struct Receipt: Hashable, Sendable {
        public var status: String
        public var reason: String?

        public init(status: String, reason: String? = nil) {
            self.status = status
            self.reason = reason
        }
    }

    /// Receipt id → its status and reason.
    public var receipts: [String: Receipt] = [:]
    /// Receipt id → the `webhook-id`s of its outbox rows.
    public var webhookIDs: [String: [String]] = [:]
    /// `webhook-id`s the receiver answered 2xx at least once.
    public var delivered: Set<String> = []
    /// Account → currency → balance.
    public var balances: [String: [String: Int]] = [:]
    /// Account → entitlement names it holds.
    public var entitlements: [String: Set<String>] = [:]
    /// What `iap audit` found, one line each (`kind: detail`).
    public var auditFindings: [String] = []
    /// Queue → messages it holds (nil: the broker did not say).
    public var queueDepths: [String: Int?] = [:]

    public init() {}
}

/// One broken promise, named by its rule.
public struct ChaosViolation: Hashable, Sendable, CustomStringConvertible {
    public enum Rule: String, CaseIterable, Sendable {
        /// A receipt the intake refused with a 4xx.
        case refused
        /// A receipt answered 2xx that the intake did not know right after a power cut.
        case lostInCut = "lost_in_cut"
        /// A receipt answered 2xx that is not credited, rejected or dead.
        case notFinal = "not_final"
        /// A final receipt whose status (or reason) is not what its kind calls for.
        case wrongStatus = "wrong_status"
        /// A receipt and its replay both credited.
        case creditedTwice = "credited_twice"
        /// A finding of `iap audit`: a balance off its ledger, a transaction applied twice.
        case audit
        /// A balance or entitlement other than what the accepted receipts grant.
        case wrongBalance = "wrong_balance"
        /// A final receipt without a webhook the receiver took.
        case webhookNotDelivered = "webhook_not_delivered"
        /// A pipeline queue still holding messages, or one the broker would not report.
        case queueNotEmpty = "queue_not_empty"
        /// A stage that died of a signal nobody sent it (a trap or an abort), not of a kill of
        /// the run's nor by exiting with an error.
        case crash
    }

    public var rule: Rule
    public var detail: String

    public init(_ rule: Rule, _ detail: String) {
        self.rule = rule
        self.detail = detail
    }

    public var description: String { "\(rule.rawValue): \(detail)" }
}
