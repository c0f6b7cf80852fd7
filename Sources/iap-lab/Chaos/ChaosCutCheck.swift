import Drills
import Foundation
import HTTPClient
import Synchronization

/// Receipt ids answered 2xx, in the order the answers came.
final class AnsweredLog: Sendable {
    private let ids = Mutex<[String]>([])

    func add(_ id: String) { ids.withLock { $0.append(id) } }
    var count: Int { ids.withLock { $0.count } }
    func ids(_ range: Range<Int>) -> [String] { ids.withLock { Array($0[range]) } }
}

/// What `iap-lab chaos --power` checks right after each cut, once the stages are back: every
/// receipt answered 2xx since the last check is known to the intake (`GET /v1/receipts/{id}`,
/// the most recent `limit` of them: those the cut could take), and `iap audit` is clean.
final class ChaosCutCheck: Sendable {
    let answered: AnsweredLog
    let receiptURL: String
    let token: String
    /// The stages' settings, for `iap audit`.
    let environment: [String: String]
    let limit: Int
    private let checkedUpTo = Mutex(0)

    init(answered: AnsweredLog, receiptsURL: String, token: String, environment: [String: String], limit: Int = 5000) {
        self.answered = answered
        self.receiptURL = receiptsURL
        self.token = token
        self.environment = environment
        self.limit = limit
    }

    /// Receipts answered before the cut: called at its instant.
    func beforeCut() -> Int { answered.count }

    /// The receipts checked after cut `cut` (answered before it: `answeredBefore`), and the
    /// violations found.
    func afterCut(_ cut: Int, answeredBefore: Int) async throws -> (checked: Int, violations: [ChaosViolation]) {
        let from = checkedUpTo.withLock { start in
            defer { start = answeredBefore }
            return max(start, answeredBefore - limit)
        }
        let ids = answered.ids(from..<answeredBefore)
        let client = try CurlHTTPClient(configuration: .init(maxConnections: 16, maxConnectionsPerHost: 16))
        let lost = await Result { try await self.unknown(ids, client: client) }
        await client.shutdown()
        var violations = try lost.get().map { ChaosViolation(.lostInCut, "\($0) gone after power cut \(cut)") }
        let audit = try await ChildProcess.run(
            StageProcesses.executable(running: ["audit"]), ["audit"], environment: environment)
        if audit.status != 0 {
            violations.append(ChaosViolation(.audit, "after power cut \(cut): \(audit.output.suffix(600))"))
        }
        return (ids.count, violations)
    }

    /// Those of `ids` the intake does not know, asked 16 at a time.
    private func unknown(_ ids: [String], client: CurlHTTPClient) async throws -> [String] {
        var lost: [String] = []
        try await withThrowingTaskGroup(of: String?.self) { group in
            var next = 0
            func add() {
                guard next < ids.count else { return }
                let id = ids[next]
                next += 1
                group.addTask { try await self.isKnown(id, client: client) ? nil : id }
            }
            for _ in 0..<16 { add() }
            while let result = try await group.next() {
                if let result { lost.append(result) }
                add()
            }
        }
        return lost
    }

    /// Whether the intake answers 200 for `id`, asking until it answers at all (it is
    /// starting again after the cut), for a minute at most.
    private func isKnown(_ id: String, client: CurlHTTPClient) async throws -> Bool {
        let request = HTTPClient.HTTPRequest(
            method: .get, url: receiptURL + "/" + id, headers: [("Authorization", "Bearer \(token)")],
            timeout: .seconds(10))
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            if let response = try? await client.execute(request), response.status < 500 {
                return response.status == 200
            }
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
