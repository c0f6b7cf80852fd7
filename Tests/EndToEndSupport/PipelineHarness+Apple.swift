import AppStore
import Foundation
import HTTPClient
import Logging
import StubStore

extension PipelineHarness {
    /// `PUT` a JSON object to the intake with the backend's token; the status and the answer.
    func put(_ path: String, _ object: [String: Any]) async throws -> (Int, [String: Any]) {
        let response = try await client.execute(
            HTTPClient.HTTPRequest(
                method: .put, url: "http://127.0.0.1:\(intakePort)\(path)",
                headers: [
                    (name: "Authorization", value: "Bearer \(Self.token)"),
                    (name: "Content-Type", value: "application/json"),
                ],
                body: Array(try JSONSerialization.data(withJSONObject: object))))
        return (
            response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        )
    }

    /// An App Store Server API client for the stub, with its development key.
    func serverAPIClient() throws -> AppStoreServerAPIClient {
        let key = try AppStoreServerAPIKey(
            privateKeyPEM: StubServerAPIConfiguration.developmentPrivateKeyPEM,
            keyID: StubServerAPIConfiguration.developmentKeyID,
            issuerID: StubServerAPIConfiguration.developmentIssuerID, bundleID: Self.bundleID)
        let stubURL = "http://127.0.0.1:\(stubPort)"
        return try AppStoreServerAPIClient(
            key: key, configuration: .init(productionBaseURL: stubURL, sandboxBaseURL: "\(stubURL)/sandbox"),
            httpClient: client, logger: Logger(label: "e2e.server-api"))
    }
}
