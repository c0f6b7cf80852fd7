import AppStore
import ArgumentParser
import Database
import Foundation
import PipelineCore
import Repositories

extension IAP {
    /// `iap revenue`: the revenue ledger's upkeep.
    struct Revenue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep the revenue ledger: back-fill what was credited before it began, rebuild its days.",
            subcommands: [RevenueBackfillCommand.self, RevenueRebuild.self])
    }

    /// `iap revenue backfill`: entries for the transactions credited before schema v21.
    struct RevenueBackfillCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backfill",
            abstract: "Write revenue entries for the transactions credited before the revenue ledger began.",
            discussion: """
                Each payment is priced as a live one is: by the price Apple signed in the stored StoreKit 2 \
                transaction where there is one, else by the catalog's `prices` (marked estimated); a transaction \
                refunded or revoked since gets a take-back of all of it. Runs once, in one transaction: a ledger \
                already back-filled is left as it is. The days the console reads are written again after it.
                """)

        func run() async throws {
            let settings = try PipelineSettings()
            guard settings.postgres != nil || FileManager.default.fileExists(atPath: settings.databasePath) else {
                throw SettingError(variable: "IAP_DB_PATH", problem: "no database at \(settings.databasePath)")
            }
            var quiet = settings.logger("revenue")
            quiet.logLevel = .error
            let catalogs = try settings.appCatalogs(logger: quiet)
            let database = try await settings.openDatabase(longWork: true)
            let outcome = try await RevenueBackfill(database).run(catalogs: catalogs, price: Self.storedPrice)
            if outcome.alreadyBackfilled > 0 {
                print("revenue: already back-filled (\(outcome.alreadyBackfilled) entries); nothing done")
            } else {
                print(
                    "revenue: \(outcome.entries) entries back-filled: \(outcome.storePriced) payments at the "
                        + "store's signed price, \(outcome.estimated) estimated from the catalog; "
                        + "\(outcome.unpriced) transactions left without a price")
            }
        }

        /// The price Apple signed in a StoreKit 2 transaction, or in a notification's: the only
        /// evidence the pipeline keeps that holds one (Google's, Huawei's and the others' prices
        /// were read from the stores' answers, which are not kept).
        @Sendable static func storedPrice(_ evidence: RevenueBackfill.StoredEvidence) -> RevenueBackfill.StoredPrice? {
            guard
                let peek = TransactionPeek.stored(
                    evidence.transactionID, receiptKind: evidence.receiptKind, receiptPayload: evidence.receiptPayload,
                    notificationStore: evidence.notificationStore, notificationPayload: evidence.notificationPayload),
                let micros = peek.priceMicros, let currency = peek.currency
            else { return nil }
            return RevenueBackfill.StoredPrice(micros: micros, currency: currency, country: peek.storefront)
        }

    }

    /// `iap revenue rebuild`: the days written again from the entries.
    struct RevenueRebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rebuild",
            abstract: "Write the revenue ledger's days (what the console's charts read) again from its entries.")

        func run() async throws {
            let settings = try PipelineSettings()
            guard settings.postgres != nil || FileManager.default.fileExists(atPath: settings.databasePath) else {
                throw SettingError(variable: "IAP_DB_PATH", problem: "no database at \(settings.databasePath)")
            }
            let days = try await RevenueRepository(try await settings.openDatabase(longWork: true)).rebuildDays()
            print("revenue: \(days) days written again from the entries")
        }
    }
}
