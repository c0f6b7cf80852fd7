import HTTPClient
import Logging
import Synchronization

/// The push token verifier of an intake, made at the first push: only the intake hears
/// Google's pushes, so only it opens a client for Google's keys (kept with their cache for
/// as long as the process runs, as the intake's own was).
final class GooglePushCheck: Sendable {
    let configuration: GooglePushTokenVerifier.Configuration
    private let made = Mutex<GooglePushTokenVerifier?>(nil)

    init(_ configuration: GooglePushTokenVerifier.Configuration) {
        self.configuration = configuration
    }

    /// The verifier, made once. - Throws: a refusal when no HTTP client can be made.
    func verifier() throws(GooglePushTokenVerifier.Refusal) -> GooglePushTokenVerifier {
        let verifier: GooglePushTokenVerifier? = made.withLock { made in
            if let made { return made }
            guard let client = try? CurlHTTPClient(logger: Logger(label: "google-push")) else { return nil }
            made = GooglePushTokenVerifier(configuration: configuration, httpClient: client)
            return made
        }
        guard let verifier else {
            throw GooglePushTokenVerifier.Refusal(reason: "Google's keys cannot be fetched here")
        }
        return verifier
    }
}
