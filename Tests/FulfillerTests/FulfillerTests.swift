import Broker
import Database
import DatabaseSQLite
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import Fulfiller

@Suite struct FulfillerTests {
    let catalog = Catalog(products: [
        Product(productID: "com.example.coins100", kind: .consumable, grant: Grant(currency: "coins", amount: 100))
    ])

    /// A database with `count` accepted receipts, and a fulfiller consuming for `body`; the
    /// fulfiller reaches the database through `wrap`.
    func withFulfiller(
        receipts count: Int, batchSize: Int = 64, through wrap: (any SQLDatabase) -> any SQLDatabase = { $0 },
        _ body: (AMQPConnection, PipelineTopology, SQLiteDatabase, [String]) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let ids = (0..<count).map { _ in UUID().uuidString.lowercased() }
        let outcomes = try await IntakeRepository(database).accept(ids.map { NewReceipt.fixture(id: $0) }, now: Date())
        #expect(outcomes.allSatisfy { if case .created = $0 { true } else { false } })
        let broker = BrokerFixture(label: "fulfiller")
        let topology = broker.pipelineTopology()
        try await broker.withConnection(topology: topology.topology) { connection in
            let fulfiller = Fulfiller(
                connection: connection, topology: topology, settlement: SettlementRepository(wrap(database)),
                deadLetters: DeadLetterRepository(wrap(database)), catalog: catalog,
                configuration: .init(batchSize: batchSize), logger: Logger(label: "test"))
            let running = Task { try await fulfiller.run() }
            defer { running.cancel() }
            try await body(connection, topology, database, ids)
        }
    }

    /// A valid verdict for each receipt, each crediting 100 coins to "player".
    func coinVerdicts(_ ids: [String]) -> [Verdict] {
        ids.enumerated().map { index, id in
            Verdict(
                outcome: .valid, receiptID: id, accountID: "player", attempts: 1, environment: "Production",
                transactions: [
                    VerifiedTransaction(
                        transactionID: "t\(index)", originalTransactionID: "t\(index)",
                        productID: "com.example.coins100")
                ],
                decidedAt: Date())
        }
    }

    func verdictMessage(_ verdict: Verdict, _ topology: PipelineTopology) throws -> OutgoingMessage {
        OutgoingMessage(
            exchange: topology.workExchange, routingKey: PipelineTopology.fulfilKey,
            body: Array(try WireCoding.encoder().encode(verdict)),
            properties: MessageProperties(messageID: verdict.receiptID))
    }

    @Test func verdictsAreCreditedOnceEvenWhenDeliveredTwice() async throws {
        try await withFulfiller(receipts: 300) { connection, topology, database, ids in
            let ledger = LedgerRepository(database)
            // Given 300 valid verdicts, each published twice (a redelivery after a crash)
            let messages = try coinVerdicts(ids).map { try verdictMessage($0, topology) }
            #expect(await connection.publish(messages + messages).allSatisfy { (try? $0.get()) != nil })

            // Then each is credited once, and the queue is drained
            let done = await eventually(timeout: .seconds(20)) {
                let drained = (try? await connection.queueStatus(topology.fulfilQueue).messages) == 0
                let coins = try? await ledger.account(id: "player")?.balances["coins"]
                return drained && coins == 30_000
            }
            #expect(done)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await ledger.account(id: "player")?.balances["coins"] == 30_000)
            #expect(try await ReceiptRepository(database).receipt(id: ids[0])?.status == .credited)
            #expect(try await ledger.audit().isEmpty)
        }
    }

    @Test func deadLetterEventMarksTheReceiptDeadWithItsReason() async throws {
        try await withFulfiller(receipts: 1) { connection, topology, database, ids in
            try await connection.publish(
                OutgoingMessage(
                    exchange: topology.deadExchange, routingKey: "", body: Array("{}".utf8),
                    properties: MessageProperties(
                        messageID: ids[0],
                        headers: [MessageHeader.deadReason: "attempts_exhausted: timeout", MessageHeader.attempts: 8])))
            let dead = await eventually {
                (try? await ReceiptRepository(database).receipt(id: ids[0])?.status) == .dead
            }
            #expect(dead)
            let receipt = try await ReceiptRepository(database).receipt(id: ids[0])
            #expect(receipt?.reason == "attempts_exhausted: timeout")
            #expect(receipt?.attempts == 8)
            // And the letter is archived whole for the operators, the queue drained
            let letter = try #require(try await DeadLetterRepository(database).deadLetters(receiptID: ids[0]).first)
            #expect(letter.reason == "attempts_exhausted: timeout")
            #expect(letter.attempts == 8)
            #expect(letter.accountID == "player")
            #expect(letter.body == Data("{}".utf8))
            let drained = await eventually { (try? await connection.queueStatus(topology.deadQueue).messages) == 0 }
            #expect(drained)
        }
    }

    @Test func unparseableVerdictIsDeadLetteredAndTheRestOfTheBatchApplied() async throws {
        try await withFulfiller(receipts: 1) { connection, topology, database, ids in
            let good = try verdictMessage(
                Verdict(
                    outcome: .rejected, receiptID: ids[0], accountID: "player", reason: "apple_status_21003",
                    attempts: 1, decidedAt: Date()),
                topology)
            let poison = OutgoingMessage(
                exchange: topology.workExchange, routingKey: PipelineTopology.fulfilKey, body: Array("garbage".utf8),
                properties: MessageProperties(messageID: "not-a-receipt"))
            _ = await connection.publish([poison, good])
            let applied = await eventually {
                (try? await ReceiptRepository(database).receipt(id: ids[0])?.status) == .rejected
            }
            #expect(applied)
            // The poison verdict is dead-lettered with its reason and archived
            let archived = await eventually {
                ((try? await DeadLetterRepository(database).deadLetters(receiptID: "not-a-receipt")) ?? []).count == 1
            }
            #expect(archived)
            let letter = try await DeadLetterRepository(database).deadLetters(receiptID: "not-a-receipt").first
            #expect(letter?.reason == "unparseable_message")
            #expect(letter?.sourceQueue == topology.fulfilQueue)
            #expect(letter?.body == Data("garbage".utf8))
            #expect(try await connection.queueStatus(topology.fulfilQueue).messages == 0)
        }
    }

    @Test func aVerdictTheEngineRefuses_isDeadLetteredWithItsReason_andChangesNothing() async throws {
        try await withFulfiller(receipts: 2) { connection, topology, database, ids in
            let receipts = ReceiptRepository(database)
            // Given a batch: a valid verdict carrying a transaction without a product (Apple never
            // sends one), and a good one behind it
            let refused = try verdictMessage(
                Verdict(
                    outcome: .valid, receiptID: ids[0], accountID: "player", attempts: 1,
                    transactions: [
                        VerifiedTransaction(transactionID: "t-bad", originalTransactionID: "t-bad", productID: "")
                    ],
                    decidedAt: Date()),
                topology)
            let good = try verdictMessage(
                Verdict(
                    outcome: .valid, receiptID: ids[1], accountID: "player", attempts: 1,
                    transactions: [
                        VerifiedTransaction(
                            transactionID: "t-good", originalTransactionID: "t-good", productID: "com.example.coins100")
                    ],
                    decidedAt: Date()),
                topology)
            #expect(await connection.publish([refused, good]).allSatisfy { (try? $0.get()) != nil })

            // Then the refused receipt ends dead with a reason that names the problem, archived
            // for the operators with the same reason, and nothing of it was credited
            let dead = await eventually(timeout: .seconds(20)) {
                (try? await receipts.receipt(id: ids[0])?.status) == .dead
            }
            #expect(dead)
            let reason = "refused: transaction t-bad has no product id"
            #expect(try await receipts.receipt(id: ids[0])?.reason == reason)
            let letter = try await DeadLetterRepository(database).deadLetters(receiptID: ids[0]).first
            #expect(letter?.reason == reason)
            #expect(letter?.sourceQueue == topology.fulfilQueue)
            // And the rest of the batch was applied
            #expect(try await receipts.receipt(id: ids[1])?.status == .credited)
            let account = try #require(try await LedgerRepository(database).account(id: "player"))
            #expect(account.ledger.map(\.transactionID) == ["t-good"])
            #expect(try await LedgerRepository(database).audit().isEmpty)
            let drained = await eventually { (try? await connection.queueStatus(topology.fulfilQueue).messages) == 0 }
            #expect(drained)
        }
    }

    @Test func aNotificationVerdictIsAppliedOnceEvenWhenDeliveredTwice() async throws {
        try await withFulfiller(receipts: 1) { connection, topology, database, ids in
            let notifications = NotificationRepository(database)
            // Given the player was credited 100 coins for t1, and Apple's REFUND of t1 was accepted
            let credited = try await SettlementRepository(database).apply(
                [
                    Verdict(
                        outcome: .valid, receiptID: ids[0], accountID: "player", attempts: 1,
                        environment: "Production",
                        transactions: [
                            VerifiedTransaction(
                                transactionID: "t1", originalTransactionID: "t1", productID: "com.example.coins100")
                        ],
                        decidedAt: Date())
                ], catalog: catalog, now: Date())
            #expect(credited == [.applied(receiptID: ids[0], status: .credited, reason: nil)])
            let notificationID = UUID().uuidString.lowercased()
            let accepted = try await notifications.acceptNotification(
                id: notificationID, app: "", payload: "signed-refund", payloadHash: String(repeating: "ab", count: 32),
                now: Date())
            #expect(accepted.created)

            // When the validator's verdict about it is published twice (a redelivery after a crash)
            let refund = Verdict(
                outcome: .valid, receiptID: notificationID, accountID: "", attempts: 1, environment: "Production",
                notification: StoreNotification(
                    notificationUUID: UUID().uuidString, type: "REFUND", environment: "Production",
                    transaction: VerifiedTransaction(
                        transactionID: "t1", originalTransactionID: "t1", productID: "com.example.coins100",
                        cancellationDate: Date())),
                decidedAt: Date())
            let message = try verdictMessage(refund, topology)
            #expect(await connection.publish([message, message]).allSatisfy { (try? $0.get()) != nil })

            // Then the coins are taken back once, the notification is applied, and the queue drains
            let done = await eventually(timeout: .seconds(20)) {
                let drained = (try? await connection.queueStatus(topology.fulfilQueue).messages) == 0
                let status = try? await notifications.notification(id: notificationID)?.status
                return drained && status == .applied
            }
            #expect(done)
            try await Task.sleep(for: .milliseconds(300))
            let account = try #require(try await LedgerRepository(database).account(id: "player"))
            #expect(account.balances == ["coins": 0])
            #expect(account.ledger.map(\.kind) == [.refund, .purchase])
            #expect(try await notifications.notification(id: notificationID)?.reason == nil)
            let pending = try await database.allPendingTypes()
            #expect(pending == [.receiptCredited, .purchaseRefunded], "\(pending)")
            #expect(try await LedgerRepository(database).audit().isEmpty)
        }
    }

    @Test func deadLetterEventMarksANotificationDead() async throws {
        try await withFulfiller(receipts: 0) { connection, topology, database, _ in
            let notifications = NotificationRepository(database)
            let notificationID = UUID().uuidString.lowercased()
            _ = try await notifications.acceptNotification(
                id: notificationID, app: "", payload: "signed-poison", payloadHash: String(repeating: "cd", count: 32),
                now: Date())
            try await connection.publish(
                OutgoingMessage(
                    exchange: topology.deadExchange, routingKey: "", body: Array("{}".utf8),
                    properties: MessageProperties(
                        messageID: notificationID,
                        headers: [MessageHeader.deadReason: "poison: undecodable JWS", MessageHeader.attempts: 1])))
            let dead = await eventually {
                (try? await notifications.notification(id: notificationID)?.status) == .dead
            }
            #expect(dead)
            #expect(try await notifications.notification(id: notificationID)?.reason == "poison: undecodable JWS")
        }
    }
}

extension SQLiteDatabase {
    /// The types of the webhooks waiting, oldest first.
    func allPendingTypes() async throws -> [WebhookType] {
        try await OutboxRepository(self).dueWebhooks(now: .distantFuture, limit: 1_000).map(\.type)
    }
}
