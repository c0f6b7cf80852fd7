import Foundation
import PipelineTesting
import StubStore
import Testing

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
