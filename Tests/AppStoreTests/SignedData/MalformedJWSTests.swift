import AppStore
import Foundation
import PipelineCore
import StubStore
import Testing

/// Input no App Store would send: each is refused with a clear reason, never a crash.
@Suite("SignedDataVerifier with malformed JWS")
struct MalformedJWSTests {
    typealias F = SignedDataFixtures

    let authority: TestCertificateAuthority
    let verifier: SignedDataVerifier
    let valid: String
    let payloadJSON: [UInt8]

    init() throws {
        authority = try F.authority()
        verifier = try F.verifier(trusting: authority)
        valid = authority.signer.signTransaction(F.transaction())
        payloadJSON = Array(try AppStoreJSON.makeEncoder().encode(F.transaction()))
    }

    private var parts: [Substring] { valid.split(separator: ".", omittingEmptySubsequences: false) }
    private var x5c: [String] {
        [authority.leafDER, authority.intermediateDER, authority.rootDER].map { Data($0).base64EncodedString() }
    }

    private func reason(_ token: String) async -> VerificationError.Reason? {
        await F.failure { try await verifier.verifyTransaction(token) }
    }

    /// A token correctly signed by the authority's leaf, with this header.
    private func signed(header: String) throws -> String {
        try authority.signer.sign(headerJSON: Array(header.utf8), payloadJSON: payloadJSON)
    }

    private func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test func theValidToken_verifies() async throws {
        #expect(await reason(valid) == nil)
    }

    // MARK: Parts

    @Test func twoOrFourParts_areInvalidFormat() async {
        #expect(await reason("\(parts[0]).\(parts[1])") == .invalidFormat)
        #expect(await reason("\(valid).\(parts[2])") == .invalidFormat)
        #expect(await reason(valid + ".") == .invalidFormat)
    }

    @Test(arguments: ["+", "/", "=", " ", "*", "\n", "é"])
    func nonBase64URLCharacters_areInvalidFormat(_ character: String) async {
        #expect(await reason("\(parts[0])\(character).\(parts[1]).\(parts[2])") == .invalidFormat)
        #expect(await reason("\(parts[0]).\(parts[1])\(character).\(parts[2])") == .invalidFormat)
        #expect(await reason("\(parts[0]).\(parts[1]).\(parts[2])\(character)") == .invalidFormat)
    }

    @Test func impossibleBase64Length_isInvalidFormat() async {
        // 4n + 1 characters never decode.
        #expect(await reason("\(parts[0]).\(parts[1])A.\(parts[2])") == .invalidFormat)
    }

    @Test func emptyHeaderOrPayload_isInvalidFormat() async {
        #expect(await reason(".\(parts[1]).\(parts[2])") == .invalidFormat)
        #expect(await reason("\(parts[0])..\(parts[2])") == .invalidFormat)
    }

    @Test func oversizedToken_isInvalidFormat() async {
        let huge = String(repeating: "A", count: 600 * 1024)
        #expect(await reason("\(parts[0]).\(huge).\(parts[2])") == .invalidFormat)
    }

    // MARK: Header

    @Test(arguments: ["not json", "[]", "\"ES256\"", "{\"alg\":256}", "{\"alg\":\"ES256\",\"x5c\":[1,2,3]}"])
    func headerThatIsNotTheRightJSON_isInvalidFormat(_ header: String) async throws {
        #expect(await reason(try signed(header: header)) == .invalidFormat)
    }

    @Test func headerWithoutAlg_isInvalidFormat() async throws {
        #expect(await reason(try signed(header: json(["x5c": x5c]))) == .invalidFormat)
    }

    @Test(arguments: ["none", "None", "HS256", "RS256", "ES384", "es256", ""])
    func algOtherThanES256_isInvalidFormat(_ alg: String) async throws {
        #expect(await reason(try signed(header: json(["alg": alg, "x5c": x5c]))) == .invalidFormat)
    }

    @Test func algNoneWithoutSignature_isInvalidFormat() async throws {
        let header = Base64URL.encode(Array(try json(["alg": "none", "x5c": x5c]).utf8))
        #expect(await reason("\(header).\(parts[1]).") == .invalidFormat)
    }

    @Test func critHeader_isInvalidFormat() async throws {
        #expect(
            await reason(try signed(header: json(["alg": "ES256", "x5c": x5c, "crit": ["exp"]]))) == .invalidFormat)
    }

    @Test func missingX5C_isInvalidFormat() async throws {
        #expect(await reason(try signed(header: json(["alg": "ES256"]))) == .invalidFormat)
    }

    @Test(arguments: [0, 1, 2, 4])
    func x5cWithOtherThanThreeCertificates_isInvalidFormat(_ count: Int) async throws {
        let certificates = Array((x5c + x5c).prefix(count))
        #expect(await reason(try signed(header: json(["alg": "ES256", "x5c": certificates]))) == .invalidFormat)
    }

    @Test func oversizedCertificate_isInvalidFormat() async throws {
        let oversized = Data(repeating: 0x30, count: 17 * 1024).base64EncodedString()
        #expect(
            await reason(try signed(header: json(["alg": "ES256", "x5c": [oversized, x5c[1], x5c[2]]])))
                == .invalidFormat)
    }

    @Test func certificateThatIsNotBase64_isInvalidFormat() async throws {
        #expect(
            await reason(try signed(header: json(["alg": "ES256", "x5c": ["***", x5c[1], x5c[2]]]))) == .invalidFormat)
        // x5c is standard base64: base64url is refused.
        let urlSafe = x5c[0].replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        if urlSafe != x5c[0] {
            #expect(
                await reason(try signed(header: json(["alg": "ES256", "x5c": [urlSafe, x5c[1], x5c[2]]])))
                    == .invalidFormat)
        }
    }

    @Test func garbageCertificates_areInvalidChain() async throws {
        let garbage = Data((0..<600).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).base64EncodedString()
        #expect(
            await reason(try signed(header: json(["alg": "ES256", "x5c": [garbage, x5c[1], x5c[2]]]))) == .invalidChain)
        #expect(
            await reason(try signed(header: json(["alg": "ES256", "x5c": [x5c[0], garbage, x5c[2]]]))) == .invalidChain)
        // A certificate where the leaf should be, but not the one that signed.
        #expect(
            await reason(try signed(header: json(["alg": "ES256", "x5c": [x5c[1], x5c[1], x5c[2]]]))) == .invalidChain)
    }

    @Test func certificateWithAnRSAKeyBoringSSLRefuses_isInvalidChain_notACrash() async throws {
        // Given a well-formed certificate whose RSA modulus is even: valid DER, which
        // swift-certificates reads, but a key BoringSSL refuses (the error path swift-crypto 3.12
        // freed twice, and 4.x once; the intake reads the chain of every notification posted)
        let authority = try ReceiptCertificateAuthority(
            notBefore: Date(timeIntervalSinceNow: -3600), notAfter: Date(timeIntervalSinceNow: 3600))
        var der = authority.rootDER
        let exponent: [UInt8] = [0x02, 0x03, 0x01, 0x00, 0x01]
        let at = try #require(der.indices.first { der[$0...].starts(with: exponent) })
        der[at - 1] &= 0xFE
        let even = Data(der).base64EncodedString()
        // When chains carrying it are read, many times over
        for _ in 0..<64 {
            // Then each is refused for its chain, and this process lives on
            #expect(
                await reason(try signed(header: json(["alg": "ES256", "x5c": [even, x5c[1], x5c[2]]]))) == .invalidChain
            )
            #expect(
                await reason(try signed(header: json(["alg": "ES256", "x5c": [x5c[0], even, x5c[2]]]))) == .invalidChain
            )
        }
    }

    // MARK: Payload and signature

    @Test(arguments: ["not json", "[]", "42", "{\"transactionId\":42}", "{\"signedDate\":\"yesterday\"}"])
    func payloadThatIsNotATransactionObject_isInvalidFormat(_ payload: String) async throws {
        let token = try authority.signer.sign(headerJSON: authority.signer.headerJSON, payloadJSON: Array(payload.utf8))
        #expect(await reason(token) == .invalidFormat)
    }

    @Test func signatureOfTheWrongLength_isInvalidSignature() async throws {
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(await reason("\(parts[0]).\(parts[1]).\(Base64URL.encode(signature.dropLast()))") == .invalidSignature)
        #expect(await reason("\(parts[0]).\(parts[1]).\(Base64URL.encode(signature + [0]))") == .invalidSignature)
        #expect(await reason("\(parts[0]).\(parts[1]).") == .invalidSignature)
    }

    @Test func zeroSignature_isInvalidSignature() async throws {
        let zero = Base64URL.encode([UInt8](repeating: 0, count: 64))
        #expect(await reason("\(parts[0]).\(parts[1]).\(zero)") == .invalidSignature)
    }

    @Test func randomEdits_neverCrash_andNeverChangeThePayload() async throws {
        // Given many single-character edits of a valid token (a deterministic sequence)
        let original = try await verifier.verifyTransaction(valid)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/")
        var characters = Array(valid)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<300 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let position = Int((state >> 33) % UInt64(characters.count))
            let replacement = alphabet[Int((state >> 17) % UInt64(alphabet.count))]
            let saved = characters[position]
            characters[position] = replacement
            // Then each is refused, or (an edit of unused bits) verifies to the very same payload
            do {
                let verified = try await verifier.verifyTransaction(String(characters))
                #expect(verified == original)
            } catch {
                #expect(VerificationError.Reason.allCases.contains(error.reason))
            }
            characters[position] = saved
        }
    }
}
