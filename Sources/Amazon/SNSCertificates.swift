import CryptoExtras
import Foundation
import HTTPClient
import Logging
import Synchronization
import X509

/// Which `SigningCertURL`s an SNS message may name: Amazon's own, fixed here
/// (`https://sns.<region>.amazonaws.com[.cn]/SimpleNotificationService-<id>.pem`), fetched over
/// TLS from Amazon's host. No setting widens it: only the lab's executable (`iap-lab`), which
/// serves a stub SNS, adds the stub's address (``trustLab(prefix:)``), so a product build can
/// never be pointed at a forger's certificate.
public enum SNSCertificateTrust {
    private static let labPrefixes = Mutex<[String]>([])

    /// Whether `url` names a certificate of Amazon SNS, by AWS's rule.
    public static func isAmazons(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), components.scheme == "https",
            let host = components.host?.lowercased(), components.port == nil, components.user == nil,
            components.query == nil, components.fragment == nil
        else { return false }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let amazonaws =
            (labels.count == 4 && labels[2...] == ["amazonaws", "com"])
            || (labels.count == 5 && labels[2...] == ["amazonaws", "com", "cn"])
        guard amazonaws, labels[0] == "sns", labels[1].count >= 3,
            labels[1].utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
        else { return false }
        let path = components.path
        return path.hasPrefix("/SimpleNotificationService-") && path.hasSuffix(".pem")
            && !path.dropFirst().contains("/")
    }

    /// Also trust certificates under `prefix` (`http://127.0.0.1:8090/amazon/sns/`): for the lab's
    /// executable and tests, which serve a stub SNS; never called by the product's.
    public static func trustLab(prefix: String) {
        labPrefixes.withLock { if !$0.contains(prefix) { $0.append(prefix) } }
    }

    /// Whether a message naming `url` may be checked with the certificate there.
    static func allows(_ url: String) -> Bool {
        isAmazons(url) || labPrefixes.withLock { prefixes in prefixes.contains { url.hasPrefix($0) } }
    }
}

/// The SNS signing certificates an intake fetched, by URL, each kept until it expires (SNS
/// signs with one certificate for months; a new one has a new URL). Fetched only from the
/// URLs ``SNSCertificateTrust`` allows, over a client made at the first message.
final class SNSCertificates: Sendable {
    /// Why a message's certificate cannot vouch for it.
    struct Refusal: Error {
        /// Whether another try may succeed (the certificate could not be fetched).
        var isTransient: Bool
        var reason: String
    }

    private struct Entry {
        var key: _RSA.Signing.PublicKey
        var notAfter: Date
    }

    private let cache = Mutex<[String: Entry]>([:])
    private let client = Mutex<CurlHTTPClient?>(nil)
    private static let maxEntries = 64

    /// The public key of the certificate at `url`, valid at `now`.
    func key(at url: String, now: Date) async throws(Refusal) -> _RSA.Signing.PublicKey {
        guard SNSCertificateTrust.allows(url) else {
            throw Refusal(isTransient: false, reason: "the signing certificate is not Amazon SNS's")
        }
        if let entry = cache.withLock({ $0[url] }), entry.notAfter > now { return entry.key }
        let http = try httpClient()
        let response: HTTPResponse
        do {
            response = try await http.execute(HTTPRequest(method: .get, url: url, timeout: .seconds(10)))
        } catch {
            throw Refusal(isTransient: true, reason: "the signing certificate could not be fetched")
        }
        guard response.status == 200 else {
            throw Refusal(
                isTransient: response.status >= 500, reason: "the signing certificate answered \(response.status)")
        }
        guard let certificate = try? Certificate(pemEncoded: String(decoding: response.body, as: UTF8.self)),
            let key = _RSA.Signing.PublicKey(certificate.publicKey)
        else { throw Refusal(isTransient: false, reason: "the signing certificate is not an RSA certificate") }
        guard certificate.notValidBefore <= now, now < certificate.notValidAfter else {
            throw Refusal(isTransient: false, reason: "the signing certificate is not valid now")
        }
        cache.withLock { cache in
            if cache.count >= Self.maxEntries { cache.removeAll() }
            cache[url] = Entry(key: key, notAfter: certificate.notValidAfter)
        }
        return key
    }

    private func httpClient() throws(Refusal) -> CurlHTTPClient {
        let made: CurlHTTPClient? = client.withLock { client in
            if let client { return client }
            client = try? CurlHTTPClient(logger: Logger(label: "amazon-sns"))
            return client
        }
        guard let made else { throw Refusal(isTransient: true, reason: "no HTTP client for SNS's certificates") }
        return made
    }
}
