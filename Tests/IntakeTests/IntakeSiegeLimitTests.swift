import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Intake

/// What keeps a siege from taking the intake (issue 25), over real sockets: a deadline for
/// each whole request that trickled bytes do not move, and caps on connections, in all and
/// per client address, enforced at accept. 127.0.0.2 and 127.0.0.3 are other loopback
/// clients. Timeouts are small and checked against generous bounds, never tight ones.
@Suite struct IntakeSiegeLimitTests {
    @Test func aBodyTrickledFasterThanTheIdleTimeoutIsCutAtTheRequestDeadline() async throws {
        // The idle timeout is far above the half second between bytes: on a loaded machine a
        // test task stalled for 2 s once let the idle timer, not the deadline, end the request.
        try await LiveIntake.run({
            $0.idleTimeout = .seconds(8)
            $0.requestTimeout = .seconds(3)
        }) { intake in
            // Given a receipt announced at 1,000 bytes, sent one byte every half second
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send(
                "POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(LiveIntake.token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
            var answered: RawHTTPConnection.Response?
            for _ in 0..<40 where answered == nil {
                try? await connection.send(" ")
                answered = await connection.response(timeout: .milliseconds(500))
            }

            // Then the deadline ends it with a 408, though no half second was idle
            #expect(answered?.status == 408)
            #expect(LiveIntake.errorCode(answered) == "request_timeout")
            #expect(await connection.closedByServer(within: .seconds(10)))
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 10).isEmpty)
        }
    }

    /// Unfinished headers never reset the idle timeout; the deadline ends them too, when it
    /// is the shorter.
    @Test func headersStillComingAtTheRequestDeadlineAre408() async throws {
        try await LiveIntake.run({
            $0.idleTimeout = .seconds(600)
            $0.requestTimeout = .seconds(2)
        }) { intake in
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            var answered: RawHTTPConnection.Response?
            for index in 0..<40 where answered == nil {
                try? await connection.send("X-\(index): y\r\n")
                answered = await connection.response(timeout: .milliseconds(500))
            }
            #expect(answered?.status == 408)
            #expect(await connection.closedByServer(within: .seconds(10)))
        }
    }

    @Test func aKeptAliveConnectionServesRequestsLongAfterItsFirstDeadline() async throws {
        try await LiveIntake.run({
            $0.idleTimeout = .seconds(10)
            $0.requestTimeout = .seconds(1)
        }) { intake in
            // The deadline runs per request, from its first byte: not per connection.
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            for _ in 0..<3 {
                try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(await connection.response()?.status == 200)
                try await Task.sleep(for: .milliseconds(1500))
            }
            await connection.close()
        }
    }

    @Test func connectionsOverTheCapsAreClosedAtAcceptAndOtherAddressesAreServed() async throws {
        try await LiveIntake.run({
            $0.maxConnectionsPerAddress = 3
            $0.maxConnections = 5
            $0.idleTimeout = .seconds(600)
        }) { intake in
            // Given three connections held open from 127.0.0.1
            var held: [RawHTTPConnection] = []
            for _ in 0..<3 { held.append(try await Self.served(intake.port, from: "127.0.0.1")) }

            // Then a fourth from that address is closed unanswered
            #expect(await Self.refused(intake.port, from: "127.0.0.1"))
            // While another address is served, up to the cap on all connections (5)
            held.append(try await Self.served(intake.port, from: "127.0.0.2"))
            held.append(try await Self.served(intake.port, from: "127.0.0.2"))
            #expect(await Self.refused(intake.port, from: "127.0.0.3"))

            // And once one of the first closes, its address is served again
            await held.removeFirst().close()
            #expect(
                await eventually(timeout: .seconds(10)) {
                    (try? await Self.served(intake.port, from: "127.0.0.1")) != nil
                })
            for connection in held { await connection.close() }
        }
    }

    /// Whether a connection from `source` is closed (reset) unanswered: the reset may even
    /// beat the connect's completion here.
    static func refused(_ port: Int, from source: String) async -> Bool {
        guard let connection = try? await RawHTTPConnection.connect(port: port, from: source) else { return true }
        try? await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let closed = await connection.closedByServer(within: .seconds(10))
        let answered = await connection.response(timeout: .zero) != nil
        await connection.close()
        return closed && !answered
    }

    /// A connection from `source` that answered `/healthz` and stays open.
    static func served(_ port: Int, from source: String) async throws -> RawHTTPConnection {
        let connection = try await RawHTTPConnection.connect(port: port, from: source)
        try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        guard await connection.response()?.status == 200 else {
            await connection.close()
            throw CancellationError()
        }
        return connection
    }

    @Test func theCapsFitUnderTheFileLimitAndTheSettingsAreRead() throws {
        let asked = ConnectionLimiter.Limits(total: 10_000, perAddress: 1_000)
        #expect(asked.fitted(underOpenFiles: 1 << 20) == asked)
        #expect(asked.fitted(underOpenFiles: 1024) == .init(total: 768, perAddress: 768))
        let env = EnvironmentReader([
            "IAP_API_TOKENS": "a-token-of-16-chars", "IAP_REQUEST_TIMEOUT_SECONDS": "12",
            "IAP_HTTP_MAX_CONNECTIONS": "500", "IAP_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "50",
        ])
        let configuration = try IntakeConfiguration(environment: env, apps: nil)
        #expect(configuration.requestTimeout == .seconds(12))
        #expect(configuration.maxConnections == 500 && configuration.maxConnectionsPerAddress == 50)
        let defaults = try IntakeConfiguration(
            environment: EnvironmentReader(["IAP_API_TOKENS": "a-token-of-16-chars"]), apps: nil)
        #expect(defaults.requestTimeout == .seconds(30))
        #expect(defaults.maxConnections == 10_000 && defaults.maxConnectionsPerAddress == 1_000)
        for bad in ["IAP_REQUEST_TIMEOUT_SECONDS", "IAP_HTTP_MAX_CONNECTIONS", "IAP_HTTP_MAX_CONNECTIONS_PER_ADDRESS"] {
            let refused = EnvironmentReader(["IAP_API_TOKENS": "a-token-of-16-chars", bad: "0"])
            #expect(throws: SettingError.self) { try IntakeConfiguration(environment: refused, apps: nil) }
        }
    }
}
