import AppStore
import Foundation
import Testing

/// Apple's server update of 2026/05/05: `api.storekit.apple.com` and
/// `api.storekit-sandbox.apple.com` are the recommended domains; the `itunes.apple.com` ones
/// still answer, so a deployment may keep them by configuration.
@Suite struct AppStoreServerAPIDomainTests {
    typealias Configuration = AppStoreServerAPIClient.Configuration

    @Test func theDefaults_areTheRecommendedDomains() {
        let configuration = Configuration()
        #expect(configuration.baseURL(.production) == "https://api.storekit.apple.com")
        #expect(configuration.baseURL(.sandbox) == "https://api.storekit-sandbox.apple.com")
    }

    @Test func theLegacyDomains_remainAValidConfiguration() async throws {
        try await ServerAPIFixture.run { fixture in
            let legacy = Configuration(
                productionBaseURL: Configuration.appleLegacyProductionBaseURL,
                sandboxBaseURL: Configuration.appleLegacySandboxBaseURL)
            let client = try AppStoreServerAPIClient(
                key: fixture.key, configuration: legacy, httpClient: fixture.stub.client)
            #expect(client.configuration.baseURL(.production) == "https://api.storekit.itunes.apple.com")
            #expect(client.configuration.baseURL(.sandbox) == "https://api.storekit-sandbox.itunes.apple.com")
        }
    }
}
