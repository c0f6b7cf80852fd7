import Foundation
import Hummingbird
import HummingbirdTesting
import StubStore

/// A receipt with one consumable purchase, fixed dates, for `com.example.game`.
func coinsReceipt(
    environment: StubReceipt.Environment = .production, transactionID: String = "1000000000000001",
    failFirst: Int? = nil, transientUntil: Date? = nil, transientStatus: Int? = nil
) -> StubReceipt {
    StubReceipt(
        bundleID: "com.example.game", environment: environment,
        transactions: [
            .init(
                transactionID: transactionID, productID: "com.example.coins100", quantity: 2,
                purchaseDate: Date(timeIntervalSince1970: 1_700_000_123.456))
        ],
        failFirst: failFirst, transientUntil: transientUntil, transientStatus: transientStatus)
}

/// A `verifyReceipt` request body as Apple documents it.
func verifyBody(_ receiptData: String?, password: String? = nil, excludeOld: Bool = false) -> ByteBuffer {
    var object: [String: Any] = ["exclude-old-transactions": excludeOld]
    if let receiptData { object["receipt-data"] = receiptData }
    if let password { object["password"] = password }
    let data = try! JSONSerialization.data(withJSONObject: object)
    return ByteBuffer(bytes: data)
}

/// The JSON object in a response body.
func jsonObject(_ buffer: ByteBuffer) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(buffer: buffer))
    guard let object = value as? [String: Any] else { throw NotAnObject() }
    return object
}

struct NotAnObject: Error {}

extension TestClientProtocol {
    /// Posts `body` to `path` and returns the answer's JSON, after checking it is HTTP 200.
    func verify(_ path: String = "/verifyReceipt", body: ByteBuffer) async throws -> [String: Any] {
        try await execute(uri: path, method: .post, body: body) { response in
            guard response.status == .ok else { throw UnexpectedStatus(status: response.status.code) }
            return try jsonObject(response.body)
        }
    }

    /// Posts `receiptData` to `path` and returns the answer's `status`.
    func status(_ receiptData: String?, at path: String = "/verifyReceipt", password: String? = nil) async throws
        -> Int?
    {
        try await verify(path, body: verifyBody(receiptData, password: password))["status"] as? Int
    }

    /// `GET /stub/stats`, decoded.
    func stats() async throws -> StubStoreStats {
        try await execute(uri: "/stub/stats", method: .get) { response in
            try JSONDecoder().decode(StubStoreStats.self, from: Data(buffer: response.body))
        }
    }
}

struct UnexpectedStatus: Error {
    var status: Int
}
