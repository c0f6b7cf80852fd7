import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Intake

/// Requests are whole or not at all (issue 25): a body cut short by its client, a broken
/// chunk, a transfer coding the intake does not speak or a Host header missing or doubled
/// is refused before any handler takes it, over a real socket, and nothing is stored.
@Suite struct IntakeWholeRequestTests {
    /// What a cut body would have been: each is valid when cut where the test cuts it, so
    /// that only the intake's refusal can keep it from being stored.
    enum Kind: String, CaseIterable, Sendable {
        case receipt, appleNotification

        var path: String { self == .receipt ? "/v1/receipts" : "/v1/apple/notifications" }
        var token: String? { self == .receipt ? LiveIntake.token : nil }

        /// Whole JSON, then padding the `Content-Length` counts: the cut after the JSON is
        /// still a valid request, as `amount=10` was a valid adjustment.
        var json: String {
            switch self {
            case .receipt: #"{"account_id": "cut-player", "receipt_data": "\#(IntakeLimitTests.receipt)"}"#
            case .appleNotification:
                #"{"signedPayload": "\#(LiveIntake.apple.signNotification(type: .test, transaction: nil))"}"#
            }
        }
    }

    enum Ending: String, CaseIterable, Sendable {
        /// The client closes the connection: nobody is left to answer.
        case close
        /// The client ends its side (TCP half-close) and waits: it is answered 400.
        case halfClose
    }

    static func head(_ kind: Kind, contentLength: Int) -> String {
        var text = "POST \(kind.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        if let token = kind.token { text += "Authorization: Bearer \(token)\r\n" }
        return text + "Content-Length: \(contentLength)\r\n\r\n"
    }

    /// Nothing the intake stored: receipts and Apple notifications alike wait for the relay.
    static func stored(_ intake: LiveIntake) async throws -> Int {
        try await IntakeRepository(intake.database).unpublished(limit: 10).count
    }

    @Test(arguments: Kind.allCases, Ending.allCases)
    func aBodyShorterThanItsContentLengthIsNeverProcessed(kind: Kind, ending: Ending) async throws {
        try await LiveIntake.run { intake in
            // Given a body announced with 64 bytes more than the client sends
            let padding = String(repeating: " ", count: 64)
            let json = kind.json
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send(Self.head(kind, contentLength: json.utf8.count + padding.utf8.count))
            try await connection.send(json)

            // When the client stops there
            switch ending {
            case .close:
                await connection.close()
                // Nothing can be answered; a handler that took the cut body would have stored it by now.
                try await Task.sleep(for: .seconds(1))
            case .halfClose:
                try await connection.finishSending()
                let response = await connection.response()
                #expect(response?.status == 400)
                #expect(LiveIntake.errorCode(response) == "incomplete_body")
                #expect(await connection.closedByServer(within: .seconds(10)))
            }

            // Then nothing was stored
            await #expect(try Self.stored(intake) == 0)
            // And a whole request on the next connection still is
            let whole = try await intake.request("POST", kind.path, body: kind.json, token: kind.token)
            #expect(whole.map { [200, 202].contains($0.status) } == true)
            await #expect(try Self.stored(intake) == 1)
        }
    }

    @Test func aBadChunkSizeAfterAWholeChunkIs400AndStoresNothing() async throws {
        try await LiveIntake.run { intake in
            let json = Kind.receipt.json
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send(
                "POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(LiveIntake.token)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + String(json.utf8.count, radix: 16) + "\r\n\(json)\r\nzz\r\n")
            let response = await connection.response()
            #expect(response?.status == 400)
            #expect(response?.headers["content-type"] == "application/json")
            #expect(LiveIntake.errorCode(response) == "malformed_request")
            #expect(await connection.closedByServer(within: .seconds(10)))
            await #expect(try Self.stored(intake) == 0)
        }
    }

    /// NIO's parser refuses a coding list that names chunked twice itself (a malformed request).
    @Test(arguments: [
        ("gzip, chunked", "unsupported_transfer_encoding"), ("deflate,chunked", "unsupported_transfer_encoding"),
        ("gzip", "unsupported_transfer_encoding"), ("identity", "unsupported_transfer_encoding"),
        ("chunked, chunked", "malformed_request"),
    ])
    func aTransferCodingOtherThanChunkedAloneIs400AndStoresNothing(coding: String, code: String) async throws {
        try await LiveIntake.run { intake in
            let json = Kind.receipt.json
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send(
                "POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(LiveIntake.token)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: \(coding)\r\n\r\n"
                    + String(json.utf8.count, radix: 16) + "\r\n\(json)\r\n0\r\n\r\n")
            let response = await connection.response()
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == code)
            #expect(await connection.closedByServer(within: .seconds(10)))
            await #expect(try Self.stored(intake) == 0)
        }
    }

    @Test(arguments: ["", "Host: 127.0.0.1\r\nHost: evil.example\r\n"])
    func http11WithoutExactlyOneHostIs400AndStoresNothing(hostLines: String) async throws {
        try await LiveIntake.run { intake in
            let json = Kind.receipt.json
            let connection = try await RawHTTPConnection.connect(port: intake.port)
            try await connection.send(
                "POST /v1/receipts HTTP/1.1\r\n\(hostLines)Authorization: Bearer \(LiveIntake.token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)")
            let response = await connection.response()
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == "invalid_host")
            #expect(await connection.closedByServer(within: .seconds(10)))
            await #expect(try Self.stored(intake) == 0)
        }
    }
}
