import Foundation
import PipelineTesting
import Testing

@testable import Intake

/// What the intake does with connections an attacker opens: slow, half-sent, oversized,
/// HTTP/1.0, or aimed at routes that do not exist. Over real sockets; timeouts are set
/// small and checked against generous bounds (3x), never tight ones.
@Suite struct IntakeConnectionTests {
    @Test func aConnectionThatSendsHalfItsHeadersIsClosedAfterTheIdleTimeout() async throws {
        try await LiveIntake.run({ $0.idleTimeout = .seconds(3) }) { intake in
            // Given a client that starts a request and stops mid-headers (slowloris)
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send("POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")

            // Then the server hangs up, without answering it
            #expect(await connection.closedByServer(within: .seconds(15)))
            #expect(await connection.response(timeout: .zero) == nil)
        }
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheIdleTimeout() async throws {
        try await LiveIntake.run({ $0.idleTimeout = .seconds(3) }) { intake in
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            #expect(await connection.closedByServer(within: .seconds(15)))
        }
    }

    @Test func aKeptAliveConnectionIsClosedOnceIdle() async throws {
        try await LiveIntake.run({ $0.idleTimeout = .seconds(3) }) { intake in
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await connection.response()?.status == 200)
            #expect(await connection.closedByServer(within: .seconds(15)))
        }
    }

    @Test func anHTTP10ConnectionIsClosedAfterItsResponse() async throws {
        // The idle timeout is long: only HTTP/1.0's rule may close this connection.
        try await LiveIntake.run({ $0.idleTimeout = .seconds(600) }) { intake in
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send("GET /healthz HTTP/1.0\r\n\r\n")
            let response = await connection.response()
            #expect(response?.status == 200)
            #expect(response?.headers["connection"] == "close")
            #expect(await connection.closedByServer(within: .seconds(10)))
        }
    }

    @Test func anHTTP10ConnectionAskingForKeepAliveServesASecondRequest() async throws {
        try await LiveIntake.run({ $0.idleTimeout = .seconds(600) }) { intake in
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(await connection.response()?.status == 200)
            try await connection.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(await connection.response()?.status == 200)
            await connection.close()
        }
    }

    @Test func anHTTP11RequestWithConnectionCloseInAnyCaseClosesTheConnection() async throws {
        try await LiveIntake.run({ $0.idleTimeout = .seconds(600) }) { intake in
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Close\r\n\r\n")
            #expect(await connection.response()?.status == 200)
            #expect(await connection.closedByServer(within: .seconds(10)))
        }
    }

    @Test func oversizedHeadersAre431InTheJSONShapeAndTheConnectionIsClosed() async throws {
        try await LiveIntake.run({ $0.maxHeaderBytes = 2048 }) { intake in
            let response = try await intake.request(
                "GET", "/v1/receipts/r1", headers: ["X-Padding": String(repeating: "a", count: 4096)])
            #expect(response?.status == 431)
            #expect(response?.headers["content-type"] == "application/json")
            #expect(LiveIntake.errorCode(response) == "headers_too_large")
        }
    }

    @Test func tooManyHeaderFieldsAre431() async throws {
        try await LiveIntake.run { intake in
            var headers: [String: String] = [:]
            for index in 0..<150 { headers["X-H\(index)"] = "v" }
            let response = try await intake.request("GET", "/healthz", headers: headers)
            #expect(response?.status == 431)
            #expect(LiveIntake.errorCode(response) == "headers_too_large")
        }
    }

    @Test func aMalformedRequestIs400InTheJSONShape() async throws {
        try await LiveIntake.run { intake in
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send("GET /healthz HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n")
            let response = await connection.response()
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == "malformed_request")
            #expect(await connection.closedByServer(within: .seconds(10)))
        }
    }

    @Test(arguments: [("/nowhere", false), ("/v1/nowhere", true), ("/v1/nowhere", false), ("/console/x", true)])
    func unknownRoutesAre404InTheJSONShapeWithOrWithoutAToken(path: String, withToken: Bool) async throws {
        try await LiveIntake.run { intake in
            let response = try await intake.request("GET", path, token: withToken ? LiveIntake.token : nil)
            #expect(response?.status == 404)
            #expect(response?.headers["content-type"] == "application/json")
            #expect(LiveIntake.errorCode(response) == "not_found")
        }
    }

    @Test func aWrongMethodIsAnErrorInTheJSONShape() async throws {
        try await LiveIntake.run { intake in
            let response = try await intake.request("DELETE", "/v1/receipts/r1")
            #expect(response.map { (400..<500).contains($0.status) } == true)
            #expect(LiveIntake.errorCode(response) != nil)
        }
    }
}
