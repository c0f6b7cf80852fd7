import Foundation
import PipelineCore
import PropertyBased
import Settlement
import Testing

/// For any sequence of events, whoever reports them and in whatever order: each Apple
/// transaction is credited at most once, debited in steps that together take no more than
/// its credit, a reversal gives back exactly the debits, money moves only on the account a transaction credited, and every
/// balance is the sum of its entries.
@Suite struct SettlementPropertyTests {
    /// A small world, so that events collide often: four transactions of two
    /// subscriptions and two consumables, three accounts, one known token.
    static let transactionIDs = ["c1", "c2", "s1", "s2", "g1"]
    static let accounts = ["a1", "a2", "a3"]

    static func transaction(_ index: Int, cancelled: Bool, share: Int?) -> VerifiedTransaction {
        let id = transactionIDs[index % transactionIDs.count]
        let t0 = EngineFixture.t0
        switch id {
        case "s1", "s2":
            // Two periods of one subscription, original s1.
            return EngineFixture.purchase(
                id, product: EngineFixture.vip, original: "s1",
                expires: t0.addingTimeInterval(id == "s1" ? 3600 : 7200), cancelled: cancelled ? t0 : nil,
                token: "00000000-0000-0000-0000-00000000000a", share: share)
        case "g1":
            return EngineFixture.purchase(
                id, product: EngineFixture.starter, quantity: 2, cancelled: cancelled ? t0 : nil)
        default:
            return EngineFixture.purchase(id, quantity: 1 + index % 3, cancelled: cancelled ? t0 : nil, share: share)
        }
    }

    /// Decodes one generated number into an event, so that shrinking works on plain numbers.
    /// An adjustment's id carries its step: the store gives every request its own id, so
    /// one seed drawn twice is two adjustments, not one applied twice.
    static func event(_ seed: Int, step: Int) -> SettlementEvent {
        let kind = seed % 9
        let rest = seed / 9
        let account = accounts[rest % accounts.count]
        let cancelled = rest % 5 == 0
        let share = rest % 7 == 0 ? (rest * 7919) % 100_001 : nil
        let transaction = transaction(rest / 3, cancelled: cancelled, share: share)
        let cause = Cause(notificationID: "n\(seed)", notificationUUID: "U\(seed)")
        switch kind {
        case 0, 1:
            return .transactionVerified(transaction, source: EngineFixture.receipt("r\(seed)", by: account))
        case 2:
            return .transactionVerified(transaction, source: .notification(cause))
        case 3:
            return .transactionVerified(
                transaction,
                source: .subscriptionCheck(checkID: "k\(seed)", accountID: account, cause: Cause(receiptID: nil)))
        case 4:
            return .takenBack(transaction, kind: rest % 2 == 0 ? .refund : .revoke, cause: cause)
        case 5:
            return .refundReversed(transaction, cause: cause)
        case 6:
            return .expired(transaction, cause: cause)
        case 7:
            return .gracePeriod(transaction, until: EngineFixture.t0.addingTimeInterval(86_400), cause: cause)
        default:
            return .adjustment(
                Adjustment(
                    id: "adj\(step).\(seed)", accountID: account, currency: "coins",
                    amount: rest % 50 - 25 == 0 ? 1 : rest % 50 - 25, reason: "support", operatorName: "alice"))
        }
    }

    @Test(arguments: NegativeBalancePolicy.allCases)
    func anySequenceOfEvents_keepsTheBooks(_ policy: NegativeBalancePolicy) async {
        var catalog = EngineFixture.catalog
        catalog.rawNegativeBalance = policy.rawValue
        let engine = SettlementEngine(catalog: catalog)
        await propertyCheck(count: 400, input: Gen.int(in: 0...100_000).array(of: 1...40)) { seeds in
            var model = LedgerModel()
            model.accounts.insert("a1")
            model.tokens["00000000-0000-0000-0000-00000000000a"] = "a2"
            for (step, seed) in seeds.enumerated() {
                let event = Self.event(seed, step: step)
                let now = EngineFixture.t0.addingTimeInterval(Double(step) * 60)
                let before = model.balances
                if case .adjustment(let adjustment) = event, !model.accounts.contains(adjustment.accountID) {
                    // An operator cannot adjust an account that never existed: refused, nothing changes.
                    #expect(throws: SettlementRefusal.self) {
                        try engine.decide(event, state: model.state(for: event), now: now)
                    }
                    continue
                }
                do {
                    let decision = try engine.decide(event, state: model.state(for: event), now: now)
                    try model.apply(decision.effects)
                } catch {
                    Issue.record("step \(step), event \(event): \(error)")
                    return
                }
                Self.checkInvariants(model)
                if event.mayDebit { Self.checkDebit(model, before: before, policy: policy) }
            }
        }
    }

    static func checkInvariants(_ model: LedgerModel) {
        var sums: [String: [String: Int]] = [:]
        for entry in model.entries {
            sums[entry.posting.accountID, default: [:]][entry.posting.currency, default: 0] += entry.posting.amount
        }
        // Every balance is the sum of its entries.
        #expect(
            sums.mapValues { $0.filter { $0.value != 0 } } == model.balances.mapValues { $0.filter { $0.value != 0 } })

        for id in Set(model.entries.compactMap(\.posting.transactionID)) where id.hasPrefix("adjustment:") {
            // A manual revoke's write-off forgives at most what it took.
            let entries = model.entries.map(\.posting).filter { $0.transactionID == id }
            let taken = -entries.filter { $0.kind == .adjustment && $0.amount < 0 }.map(\.amount).reduce(0, +)
            #expect(entries.filter { $0.kind == .writeOff }.map(\.amount).reduce(0, +) <= taken)
        }
        for id in Set(model.entries.compactMap(\.posting.transactionID)) where !id.hasPrefix("adjustment:") {
            let entries = model.entries.map(\.posting).filter { $0.transactionID == id }
            let purchases = entries.filter { $0.kind == .purchase }
            let debits = entries.filter { $0.kind == .refund || $0.kind == .revoke }
            let reversals = entries.filter { $0.kind == .refundReversal }
            // Credited at most once, debited in steps 1, 2, ... (each once), reversed at most once.
            #expect(purchases.count <= 1, "\(id) credited \(purchases.count) times")
            #expect(debits.map(\.step) == (0..<debits.count).map { $0 + 1 }, "\(id) debited in steps")
            #expect(reversals.count <= 1)
            // The debits together take back no more than the credit, from the account credited.
            let debited = -debits.map(\.amount).reduce(0, +)
            if let debit = debits.first {
                let purchase = purchases.first
                #expect(purchase != nil, "\(id) debited without a credit")
                #expect(debit.accountID == purchase?.accountID)
                #expect(debited <= (purchase?.amount ?? 0) && debits.allSatisfy { $0.amount < 0 })
            }
            // Write-offs forgive at most the debits, once per step.
            let writeOffs = entries.filter { $0.kind == .writeOff }
            let forgiven = writeOffs.map(\.amount).reduce(0, +)
            #expect(Set(writeOffs.map(\.step)).count == writeOffs.count)
            #expect(writeOffs.allSatisfy { $0.amount > 0 } && forgiven <= debited)
            // A reversal gives back exactly what the debits took: not what was written off.
            if let reversal = reversals.first {
                #expect(reversal.amount == debited - forgiven)
            }
            // The money of a transaction moves on the account its row names.
            let owner = model.transactions[id]?.record.accountID
            #expect(entries.allSatisfy { $0.accountID == owner })
        }
        // A transaction that credited an account stays on it: renewals follow the first.
        let subscription = model.transactionOrder.compactMap { model.transactions[$0] }
            .filter { $0.record.originalTransactionID == "s1" }.compactMap(\.record.accountID)
        #expect(Set(subscription).count <= 1, "subscription s1 credited to \(subscription)")
    }

    /// After a refund or revocation: `allow` lets a balance fall below zero and flags the
    /// account that fell; `clamp` never takes a balance below zero (nor lower, if an
    /// adjustment left it there) and flags every write-off.
    static func checkDebit(_ model: LedgerModel, before: [String: [String: Int]], policy: NegativeBalancePolicy) {
        for (account, balances) in model.balances {
            for (currency, after) in balances where after < before[account]?[currency] ?? 0 {
                let was = before[account]?[currency] ?? 0
                switch policy {
                case .allow:
                    if after < 0 {
                        #expect(model.flags.contains { $0.accountID == account && $0.reason == .negativeBalance })
                    }
                case .clamp:
                    #expect(after >= min(was, 0), "clamp took \(account) from \(was) to \(after) \(currency)")
                }
            }
        }
        #expect(model.flags.allSatisfy { $0.reason == (policy == .allow ? .negativeBalance : .refundShortfall) })
    }
}
