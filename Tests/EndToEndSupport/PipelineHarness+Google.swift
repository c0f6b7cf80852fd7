import Database
import Foundation
import Fulfiller
import GooglePlay
import HTTPClient
import Intake
import Logging
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore

/// Google's real-time developer notifications, as Cloud Pub/Sub pushes them to the intake:
/// the push subscription's audience and service account, and the stub as Google's keys.
extension PipelineHarness {
    static let pushAudience = "https://iap.example.com/v1/google/notifications"

    /// The intake the harness runs: the backend's token (its stores are the pipeline's).
    static func intakeConfiguration(stubURL: String) -> IntakeConfiguration {
        IntakeConfiguration(port: 0, apiTokens: [token])
    }

    /// Google Play as the stub speaks it: its service account and API, the test app, and
    /// pushes checked against the stub's published key; by default without its jobs (tests
    /// read the voided list and answer chargeback reviews themselves, on their clock).
    static func googlePlayStore(_ stub: StubAppStore, url: String, jobs: GooglePlayStore.Jobs = noJobs) throws
        -> GooglePlayStore
    {
        GooglePlayStore(
            setup: try googlePlaySetup(stub, url: url),
            push: .init(
                audience: pushAudience, serviceAccountEmail: StubGooglePlay.pushServiceAccount,
                certsURL: url + StubGooglePlay.certsPath),
            jobs: jobs)
    }

    static var noJobs: GooglePlayStore.Jobs {
        var jobs = GooglePlayStore.Jobs()
        (jobs.voidedInterval, jobs.refundReviews) = (nil, nil)
        return jobs
    }

    /// `POST /v1/receipts` of a Play purchase of the harness's app, as a backend posts it.
    func submitGooglePlay(account: String, token: String, product: String) async throws -> (Int, [String: Any]) {
        try await post(
            "/v1/receipts",
            [
                "account_id": account,
                "google_play": ["package_name": Self.googlePackage, "product_id": product, "purchase_token": token],
            ])
    }

    var googleNotificationURL: String { "http://127.0.0.1:\(intakePort)/v1/google/notifications" }

    /// Pushes `notification` (a `DeveloperNotification`) as Pub/Sub would, with the stub's
    /// token unless `authorization` is given (nil: no header); the status and the answer.
    func pushGoogle(
        _ notification: [String: Any], messageID: String, authorization: String?? = .none
    ) async throws -> (Int, [String: Any]) {
        let bearer = authorization ?? "Bearer " + stub.googlePlay.pushToken(audience: Self.pushAudience)
        let response = try await client.execute(
            HTTPClient.HTTPRequest(
                method: .post, url: googleNotificationURL,
                headers: (bearer.map { [(name: "Authorization", value: $0)] } ?? [])
                    + [(name: "Content-Type", value: "application/json")],
                body: Array(StubGooglePlay.pushBody(notification, messageID: messageID))))
        return (
            response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        )
    }

    /// A `DeveloperNotification` of the harness's app.
    static func developerNotification(_ kind: String, _ fields: [String: Any]) -> [String: Any] {
        ["version": "1.0", "packageName": googlePackage, "eventTimeMillis": "1764064800000", kind: fields]
    }

    /// What Google is owed for the Play purchase credited as `order` (its store
    /// confirmation), and what the confirmation asks Google to do.
    func googleConfirmation(_ order: String) async throws
        -> (row: ConfirmationRepository.Confirmation, action: GooglePlayConfirmation.Action?)?
    {
        try await ConfirmationRepository(database).confirmation(store: GooglePlayStore.id, transactionID: order).map {
            ($0, GooglePlayConfirmation(json: $0.payload)?.action)
        }
    }

    /// Whether Google's confirmation of `order` reaches `status` before the wait runs out.
    func googleConfirmation(_ order: String, becomes status: ConfirmationRepository.Confirmation.Status) async -> Bool {
        await eventually { (try? await googleConfirmation(order))??.row.status == status }
    }
}

extension PipelineHarness {
    /// Reads the stub's voided list as the fulfiller's poller does (the harness runs none).
    func voidedPoller() throws -> GoogleVoidedPoller {
        GoogleVoidedPoller(
            client: try googlePlaySetup().client(httpClient: client), store: GoogleVoidedRepository(database),
            packageNames: [Self.googlePackage], catalog: Self.catalog, logger: Logger(label: "voided"))
    }
}
