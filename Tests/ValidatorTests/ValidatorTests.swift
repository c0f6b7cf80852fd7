import Broker
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Synchronization
import Testing

@testable import Validator

/// A verifier that answers from a script, per receipt id: the validator's seam.
struct ScriptedVerifier: ReceiptVerifier {
    let script: @Sendable (Submission) -> VerificationOutcome
    func verify(_ submission: Submission) async -> VerificationOutcome { script(submission) }
}

@Suite struct ValidatorTests {
    let transaction = VerifiedTransaction(
        transactionID: "t1", originalTransactionID: "t1", productID: "com.example.coins100")

    func submission(_ id: String) -> Submission {
        Submission(id: id, accountID: "player", evidence: .receipt("YQ=="), submittedAt: Date())
    }

    /// Runs a validator over a fresh pipeline topology while `body` runs.
    func withValidator(
        maxAttempts: Int = 3, retryDelays: [Duration] = [.seconds(1), .seconds(2)],
        verifier: @escaping @Sendable (Submission) -> VerificationOutcome,
        _ body: (AMQPConnection, PipelineTopology) async throws -> Void
    ) async throws {
        let broker = BrokerFixture(label: "validator")
        let topology = broker.pipelineTopology(retryDelays: retryDelays)
        try await broker.withConnection(topology: topology.topology) { connection in
            let validator = Validator(
                connection: connection, topology: topology, verifier: ScriptedVerifier(script: verifier),
                configuration: .init(concurrency: 8, retryPolicy: RetryPolicy(maxAttempts: maxAttempts)),
                logger: Logger(label: "test"))
            let running = Task { try await validator.run() }
            defer { running.cancel() }
            try await body(connection, topology)
        }
    }

    func send(_ submission: Submission, _ connection: AMQPConnection, _ topology: PipelineTopology) async throws {
        try await connection.publish(
            OutgoingMessage(
                exchange: topology.workExchange, routingKey: PipelineTopology.validateKey,
                body: Array(try WireCoding.encoder().encode(submission)),
                properties: MessageProperties(messageID: submission.id)))
    }

    func first(_ queue: String, _ connection: AMQPConnection) async throws -> Delivery? {
        for try await delivery in connection.consume(queue: queue, prefetch: 1) {
            delivery.ack()
            return delivery
        }
        return nil
    }

    @Test func validReceiptBecomesAVerdictForTheFulfiller() async throws {
        try await withValidator(verifier: { _ in .valid(environment: "Production", transactions: [transaction]) }) {
            connection, topology in
            try await send(submission("r-valid"), connection, topology)
            let delivery = try #require(try await first(topology.fulfilQueue, connection))
            let verdict = try WireCoding.decoder().decode(Verdict.self, from: Data(delivery.body))
            #expect(verdict.outcome == .valid)
            #expect(verdict.receiptID == "r-valid")
            #expect(verdict.environment == "Production")
            #expect(verdict.transactions == [transaction])
            #expect(verdict.attempts == 1)
            // And the original was acked
            let drained = await eventually { (try? await connection.queueStatus(topology.validateQueue).messages) == 0 }
            #expect(drained)
        }
    }

    @Test func permanentFailureBecomesARejectedVerdictWithItsReason() async throws {
        try await withValidator(verifier: { _ in .rejected(reason: "apple_status_21003") }) { connection, topology in
            try await send(submission("r-forged"), connection, topology)
            let delivery = try #require(try await first(topology.fulfilQueue, connection))
            let verdict = try WireCoding.decoder().decode(Verdict.self, from: Data(delivery.body))
            #expect(verdict.outcome == .rejected)
            #expect(verdict.reason == "apple_status_21003")
        }
    }

    @Test func transientFailureIsRetriedThroughTheDelayTierAndThenSucceeds() async throws {
        // Given a verify endpoint that fails the first attempt
        let calls = Mutex(0)
        try await withValidator(verifier: { _ in
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            return call == 1
                ? .transient(reason: "http_503") : .valid(environment: "Production", transactions: [transaction])
        }) { connection, topology in
            try await send(submission("r-flaky"), connection, topology)
            var outcomes: [Verdict] = []
            for try await delivery in connection.consume(queue: topology.fulfilQueue, prefetch: 10) {
                outcomes.append(try WireCoding.decoder().decode(Verdict.self, from: Data(delivery.body)))
                delivery.ack()
                if outcomes.count == 2 { break }
            }
            // Then a retrying progress verdict, then the valid one on the second attempt
            #expect(outcomes.map(\.outcome) == [.retrying, .valid])
            #expect(outcomes[0].reason == "http_503")
            #expect(outcomes[1].attempts == 2)
            #expect(calls.withLock { $0 } == 2)
        }
    }

    @Test func attemptsUsedUpGoToTheDeadLetterQueueWithReasonAndCount() async throws {
        try await withValidator(maxAttempts: 2, verifier: { _ in .transient(reason: "timeout") }) {
            connection, topology in
            try await send(submission("r-hopeless"), connection, topology)
            let dead = try #require(try await first(topology.deadQueue, connection))
            #expect(dead.properties.messageID == "r-hopeless")
            #expect(dead.properties.headers[MessageHeader.deadReason]?.stringValue == "attempts_exhausted: timeout")
            #expect(dead.properties.headers[MessageHeader.attempts]?.intValue == 2)
            #expect(dead.properties.headers[MessageHeader.lastError]?.stringValue == "timeout")
            // Every attempt is on the letter, for the operator who reviews it.
            let log = dead.properties.headers[MessageHeader.attemptLog]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(log.count == 2)
            #expect(log.first?.hasPrefix("attempt 1 at ") == true && log.first?.hasSuffix(": timeout") == true)
            #expect(log.last?.hasPrefix("attempt 2 at ") == true)
            let submission = try WireCoding.decoder().decode(Submission.self, from: Data(dead.body))
            #expect(submission.id == "r-hopeless")
        }
    }

    @Test func unparseableMessageIsDeadLetteredAtOnce() async throws {
        let calls = Mutex(0)
        try await withValidator(verifier: { _ in
            calls.withLock { $0 += 1 }
            return .rejected(reason: "x")
        }) {
            connection, topology in
            try await connection.publish(
                OutgoingMessage(
                    exchange: topology.workExchange, routingKey: PipelineTopology.validateKey,
                    body: Array("garbage".utf8),
                    properties: MessageProperties(messageID: "r-poison")))
            let dead = try #require(try await first(topology.deadQueue, connection))
            #expect(dead.properties.headers[MessageHeader.deadReason]?.stringValue == "unparseable_message")
            #expect(dead.body == Array("garbage".utf8))
            #expect(calls.withLock { $0 } == 0)
        }
    }

    @Test func retryAfterHintChoosesALongerTier() async throws {
        let calls = Mutex(0)
        try await withValidator(
            retryDelays: [.seconds(1), .seconds(2), .seconds(60)],
            verifier: { _ in
                calls.withLock { $0 += 1 }
                return .transient(reason: "http_429", retryAfter: .seconds(30))
            }
        ) { connection, topology in
            try await send(submission("r-throttled"), connection, topology)
            let longTier = topology.retryTier(afterAttempt: 3).queue
            let parked = await eventually { (try? await connection.queueStatus(longTier).messages) == 1 }
            #expect(parked)
        }
    }

    @Test func overTheCallBudgetTheMessageWaitsInATierWithoutSpendingAnAttempt() async throws {
        // Given a verifier whose budget has no room for 3 s, three times, then answers
        let calls = Mutex(0)
        try await withValidator(
            maxAttempts: 1, retryDelays: [.seconds(1), .seconds(2), .seconds(60)],
            verifier: { _ in
                let call = calls.withLock {
                    $0 += 1
                    return $0
                }
                return call <= 3
                    ? .deferred(reason: "server_api_budget_getTransactionInfo", retryAfter: .seconds(3))
                    : .valid(environment: "Production", transactions: [transaction])
            }
        ) { connection, topology in
            try await send(submission("r-budget"), connection, topology)
            // Then, though one attempt is all it may spend, it comes back through the 2 s tier
            // (the longest not past the budget's hint) until it is verified, with no progress verdict
            let verdict = try #require(try await first(topology.fulfilQueue, connection))
            let decoded = try WireCoding.decoder().decode(Verdict.self, from: Data(verdict.body))
            #expect(decoded.outcome == .valid)
            #expect(decoded.attempts == 1)
            #expect(calls.withLock { $0 } == 4)
            #expect(try await connection.queueStatus(topology.deadQueue).messages == 0)
        }
    }
}
