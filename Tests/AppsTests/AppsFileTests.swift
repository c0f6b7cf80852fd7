import Foundation
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// `iap apps check`: a file of apps (issue 30) is read by the single-app settings' own
/// parsers, and what does not hold stops it naming the app and the member, never a secret.
@Suite struct AppsFileTests {
    static let secrets = ["whsec-puzzle-secret-0001", "puzzle-backend-token-0001", "racer-backend-token-00001"]

    /// Two apps, YAML; `change` edits the text before it is written.
    static func twoApps(_ change: (String) -> String = { $0 }) -> String {
        change(
            """
            apps:
              - id: puzzle
                api_tokens: [puzzle-backend-token-0001]
                webhook: { url: "https://puzzle.example/iap", secret: "whsec-puzzle-secret-0001" }
                apple: { bundle_id: com.studio.puzzle, app_apple_id: 1234567890 }
                google_play: { package_names: [com.studio.puzzle], service_account: SERVICE_ACCOUNT }
              - id: racer
                api_tokens: [racer-backend-token-00001]
                apple: { bundle_id: com.studio.racer }

            """)
    }

    static func check(_ text: String) async throws -> (status: Int32, output: String) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let account = directory.file("play.json")
        try StubGooglePlay().serviceAccountJSON(baseURL: "http://127.0.0.1:1").write(to: URL(fileURLWithPath: account))
        let file = directory.file("apps.yaml")
        try text.replacingOccurrences(of: "SERVICE_ACCOUNT", with: account).write(
            toFile: file, atomically: true, encoding: .utf8)
        return try await IAPProcess.run(["apps", "check", "--file", file])
    }

    @Test func twoAppsAreReadAndShownWithoutSecrets() async throws {
        let run = try await Self.check(Self.twoApps())
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("2 apps in"))
        #expect(run.output.contains("puzzle: stores apple, google (com.studio.puzzle; com.studio.puzzle)"))
        #expect(run.output.contains("racer: stores apple (com.studio.racer)"))
        #expect(run.output.contains("webhooks to puzzle.example") && run.output.contains("webhooks off"))
        for secret in Self.secrets { #expect(!run.output.contains(secret)) }
    }

    @Test func theSameAppsAsJSONAreReadAlike() async throws {
        let json = """
            {"apps": [{"id": "solo", "api_tokens": ["solo-backend-token-00001"],
                       "apple": {"bundle_id": "com.studio.solo"}}]}
            """
        let run = try await Self.check(json)
        #expect(run.status == 0 && run.output.contains("solo: stores apple (com.studio.solo)"), "\(run.output)")
    }

    static let refusals: [(String, @Sendable (String) -> String, String)] = [
        (
            "a duplicate id", { $0.replacingOccurrences(of: "id: racer", with: "id: puzzle") },
            "app puzzle is listed twice"
        ),
        (
            "a duplicate bundle id", { $0.replacingOccurrences(of: "com.studio.racer", with: "com.studio.puzzle") },
            "apps puzzle and racer share apple.bundle_id com.studio.puzzle"
        ),
        (
            "a duplicate token",
            { $0.replacingOccurrences(of: "racer-backend-token-00001", with: "puzzle-backend-token-0001") },
            "apps puzzle and racer share api_tokens a value"
        ),
        (
            "a package name of two apps",
            {
                $0.replacingOccurrences(
                    of: "apple: { bundle_id: com.studio.racer }",
                    with: "google_play: { package_names: [com.studio.puzzle], service_account: SERVICE_ACCOUNT }")
            }, "apps puzzle and racer share google_play.package_names com.studio.puzzle"
        ),
        (
            "a store without its credential",
            { $0.replacingOccurrences(of: ", service_account: SERVICE_ACCOUNT", with: "") },
            "app puzzle: google_play.service_account is required with google_play"
        ),
        (
            "a webhook without its secret",
            { $0.replacingOccurrences(of: #", secret: "whsec-puzzle-secret-0001""#, with: "") },
            "app puzzle: webhook.secret is required with webhook"
        ),
        (
            "an unknown member", { $0.replacingOccurrences(of: "bundle_id: com.studio.racer", with: "bundel_id: x") },
            "app racer: unknown member apple.bundel_id"
        ),
        (
            "a short token", { $0.replacingOccurrences(of: "racer-backend-token-00001", with: "short") },
            "app racer: api_tokens each token needs at least 16 characters"
        ),
        (
            "a malformed bundle id", { $0.replacingOccurrences(of: "com.studio.racer", with: "racer game") },
            "app racer: apple.bundle_id must be a bundle id"
        ),
        (
            "a catalog that cannot be read",
            { $0.replacingOccurrences(of: "  - id: racer\n", with: "  - id: racer\n    catalog: /nonexistent.json\n") },
            "app racer: catalog"
        ),
        (
            "a member given twice",
            { $0.replacingOccurrences(of: "  - id: racer\n", with: "  - id: racer\n    id: racer2\n") },
            "has a member given twice: id"
        ),
        (
            "a line that is not YAML, holding a secret",
            {
                $0.replacingOccurrences(
                    of: #"secret: "whsec-puzzle-secret-0001""#, with: #"secret: "whsec-puzzle-secret-0001"#)
            },
            "is not YAML or JSON: line"
        ),
        ("no apps", { _ in "apps: []\n" }, "`apps:` lists no app"),
    ]

    @Test(arguments: 0..<refusals.count) func aBadAppsFileIsRefusedNamingTheAppAndMember(_ index: Int) async throws {
        let (name, change, expected) = Self.refusals[index]
        let run = try await Self.check(Self.twoApps(change))
        #expect(run.status != 0, "\(name): \(run.output)")
        #expect(run.output.contains("IAP_APPS: \(expected)"), "\(name): \(run.output)")
        for secret in Self.secrets { #expect(!run.output.contains(secret), "\(name) printed a secret") }
    }
}

/// Credentials are one app's each: an apps file where two apps share a store credential is
/// refused naming both apps, never printing a secret. What is a team's (Apple's issuer id,
/// the service account Google's pushes are signed by) may be shared.
extension AppsFileTests {
    static let credentialSecrets = [
        "puzzle-shared-secret-0001", "racer-shared-secret-00001", "puzzle-huawei-secret-0001",
        "racer-huawei-secret-00001", "sk_test_puzzle_0001", "sk_test_racer_00001", "whsec_puzzle_0001",
        "whsec_racer_00001", "whsec_racer_00002", "BEGIN PRIVATE KEY",
    ]

    /// Another P-256 key than the stub's development key: racer's `.p8`, made for this test.
    static let racerPrivateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg1ZK7HAfyZunnl7+Q
        4n8qS4LKFD8g4n3XWu2/vCEWHPmhRANCAAQzYRwR1++zCpH7xxA8dPmDaj+oD3iS
        zshfddnZILukS9yEzSSOijnjR0IZirlJH1t5FzUn1crfiBr5mrB+pIH+
        -----END PRIVATE KEY-----
        """

    /// Each app's Huawei IAP public key (RSA keys take a moment: made once).
    static let huaweiKeys = (puzzle: StubHuawei().publicKeyBase64, racer: StubHuawei().publicKeyBase64)

    /// Two apps with every store, each its own credentials, sharing the Apple issuer id and the
    /// push service account; `change` edits the text. The `*_P8` and `*_PLAY` placeholders
    /// become key files' paths.
    static func twoStoreApps(_ change: (String) -> String = { $0 }) -> String {
        var text = ""
        for app in ["puzzle", "racer"] {
            let pad = app == "puzzle" ? "0001" : "00001"
            text += """
                  - id: \(app)
                    api_tokens: [\(app)-backend-token-\(pad)]
                    apple:
                      bundle_id: com.studio.\(app)
                      shared_secret: \(app)-shared-secret-\(pad)
                      server_api:
                        key_id: \(app.uppercased())KEY
                        issuer_id: 6a6d1a5e-3c0f-4b8e-9d2a-5f1e7c3b9a40
                        private_key: \(app.uppercased())_P8
                    google_play:
                      package_names: [com.studio.\(app)]
                      service_account: \(app.uppercased())_PLAY
                      push_audience: https://iap.example/v1/google/notifications/\(app)
                      push_service_account: pubsub-push@studio.iam.gserviceaccount.com
                    huawei:
                      client_id: "10000000\(app == "puzzle" ? 1 : 2)"
                      client_secret: \(app)-huawei-secret-\(pad)
                      public_key: \(app == "puzzle" ? huaweiKeys.puzzle : huaweiKeys.racer)
                    stripe:
                      api_key: sk_test_\(app)_\(pad)
                      webhook_secrets: [whsec_\(app)_\(pad)]

                """
        }
        return change("apps:\n" + text)
    }

    static func checkStoreApps(_ text: String) async throws -> (status: Int32, output: String) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var text = text
        for (app, pem) in [
            ("PUZZLE", StubServerAPIConfiguration.developmentPrivateKeyPEM), ("RACER", racerPrivateKeyPEM),
        ] {
            let key = directory.file("\(app)-AuthKey.p8")
            try pem.write(toFile: key, atomically: true, encoding: .utf8)
            let play = directory.file("\(app)-play.json")
            try StubGooglePlay().serviceAccountJSON(baseURL: "http://127.0.0.1:1").write(to: URL(fileURLWithPath: play))
            text = text.replacingOccurrences(of: "\(app)_P8", with: key)
                .replacingOccurrences(of: "\(app)_PLAY", with: play)
        }
        let file = directory.file("apps.yaml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try await IAPProcess.run(["apps", "check", "--file", file])
    }

    @Test func twoAppsWithCredentialsOfTheirOwnAreTakenThoughTheyShareAnIssuerAndAPushAccount() async throws {
        let run = try await Self.checkStoreApps(Self.twoStoreApps())
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("2 apps in"), "\(run.output)")
        #expect(run.output.contains("puzzle: stores apple, google, huawei, stripe"), "\(run.output)")
        #expect(run.output.contains("racer: stores apple, google, huawei, stripe"), "\(run.output)")
        for secret in Self.credentialSecrets { #expect(!run.output.contains(secret), "printed \(secret)") }
    }

    /// Each shared credential: racer's value made puzzle's, and the refusal expected.
    static let shared: [(from: String, to: String, refusal: String)] = [
        ("racer-shared-secret-00001", "puzzle-shared-secret-0001", "share apple.shared_secret a value"),
        ("key_id: RACERKEY", "key_id: PUZZLEKEY", "share apple.server_api.key_id PUZZLEKEY"),
        ("RACER_P8", "PUZZLE_P8", "share apple.server_api.private_key " + NSTemporaryDirectory()),
        ("RACER_PLAY", "PUZZLE_PLAY", "share google_play.service_account " + NSTemporaryDirectory()),
        (
            "notifications/racer", "notifications/puzzle",
            "share google_play.push_audience https://iap.example/v1/google/notifications/puzzle"
        ),
        ("racer-huawei-secret-00001", "puzzle-huawei-secret-0001", "share huawei.client_secret a value"),
        (huaweiKeys.racer, huaweiKeys.puzzle, "share huawei.public_key a value"),
        ("sk_test_racer_00001", "sk_test_puzzle_0001", "share stripe.api_key a value"),
        // One secret of a rotation is enough
        ("[whsec_racer_00001]", "[whsec_racer_00002, whsec_puzzle_0001]", "share stripe.webhook_secrets a value"),
    ]

    @Test(arguments: 0..<shared.count) func aCredentialOfTwoAppsIsRefusedNamingBothAppsNeverTheSecret(
        _ index: Int
    ) async throws {
        let (from, to, refusal) = Self.shared[index]
        let text = Self.twoStoreApps { $0.replacingOccurrences(of: from, with: to) }
        #expect(text.contains(to), "the change applies")
        let run = try await Self.checkStoreApps(text)
        #expect(run.status != 0, "\(refusal): \(run.output)")
        #expect(run.output.contains("IAP_APPS: apps puzzle and racer \(refusal)"), "\(run.output)")
        for secret in Self.credentialSecrets { #expect(!run.output.contains(secret), "\(refusal): printed \(secret)") }
        #expect(!run.output.contains(Self.huaweiKeys.puzzle), "\(refusal): printed the public key")
    }
}
