import AppStore
import Foundation
import PipelineTesting
import StubStore
import Testing

/// The JWS parser and verifier (compact form, header, payload, chain, signature) under random
/// and mutated tokens: never a crash, every failure a ``VerificationError``, and nothing but an
/// unchanged signed part ever verifies.
@Suite struct JWSFuzzTests {
    let seeds: JWSFuzzSeeds

    init() throws {
        seeds = try JWSFuzzSeeds()
    }

    /// Verifies `token` as the kind of seed `kind` is; the reason it failed, or nil.
    func verify(_ token: String, kind: Int, verifier: SignedDataVerifier) async -> VerificationError.Reason? {
        do throws(VerificationError) {
            switch kind {
            case 0: _ = try await verifier.verifyTransaction(token)
            case 1: _ = try await verifier.verifyRenewalInfo(token)
            default: _ = try await verifier.verifyNotification(token)
            }
            return nil
        } catch {
            #expect(!error.message.isEmpty, "a failure says why")
            return error.reason
        }
    }

    /// The signed part (`header.payload`) of a compact JWS.
    func signedPart(_ token: String) -> Substring {
        token.lastIndex(of: ".").map { token[..<$0] } ?? Substring(token)
    }

    @Test func randomAndMutatedTokens_neverVerifyUnlessTheSignedPartIsUnchanged() async throws {
        await FuzzBudget(defaultIterations: 400).run("jws.text") { random, _ in
            // Given a seed token, mutated byte by byte (or noise, now and then)
            let kind = random.below(seeds.tokens.count)
            let seed = seeds.tokens[kind]
            let bytes = FuzzBytes.input(from: [Array(seed.utf8)], random: &random, maxLength: 16_384)
            let token = String(decoding: bytes, as: UTF8.self)

            // When it is verified, Then it fails with a reason, or its signed part is the seed's
            if await verify(token, kind: kind, verifier: seeds.sandbox) == nil {
                #expect(signedPart(token) == signedPart(seed), "a changed header or payload verified: \(token)")
            }
            return 1
        }
    }

    @Test func resignedPayloadMutations_failWithAReasonOrPassEveryCheck() async throws {
        let parts = seeds.decodedParts
        try #require(parts.count == seeds.tokens.count)
        let signer = seeds.authority.signer
        try await FuzzBudget(defaultIterations: 300).run("jws.payload") { random, _ in
            // Given a payload with wrong types, duplicate keys, odd numbers, deep nesting...,
            // correctly signed by the trusted leaf
            let kind = random.below(parts.count)
            let payload = FuzzJSON.input(from: [parts[kind].payload], random: &random)
            let token = try signer.sign(headerJSON: signer.headerJSON, payloadJSON: payload)

            // When it is verified as its kind
            let verifier = random.oneIn(4) ? seeds.production : seeds.sandbox
            let reason = await verify(token, kind: kind, verifier: verifier)

            // Then a signature is never the complaint, and a transaction that passes is this
            // app's, of the verifier's environment
            #expect(reason != .invalidSignature)
            if reason == nil, kind == 0 {
                let transaction = try await verifier.verifyTransaction(token)
                #expect(transaction.bundleId == JWSFuzzSeeds.bundleID)
                #expect(transaction.rawEnvironment == verifier.environment.rawValue)
            }
            return 1
        }
    }

    @Test func resignedHeaderMutations_passOnlyAsES256WithTheTrustedChain() async throws {
        let parts = seeds.decodedParts
        let signer = seeds.authority.signer
        try await FuzzBudget(defaultIterations: 300).run("jws.header") { random, _ in
            let kind = random.below(parts.count)
            let header = FuzzJSON.input(from: [parts[kind].header], random: &random)
            let token = try signer.sign(headerJSON: header, payloadJSON: parts[kind].payload.bytes)
            if await verify(token, kind: kind, verifier: seeds.sandbox) == nil {
                // What passed named ES256 and carried a chain the configured root vouches for.
                let text = String(decoding: header, as: UTF8.self)
                #expect(text.contains("\"ES256\""), "a header without ES256 verified: \(text)")
                #expect(text.contains("\"x5c\""))
            }
            return 1
        }
    }

    @Test func aChangedSignature_neverVerifies() async throws {
        try await FuzzBudget(defaultIterations: 300).run("jws.signature") { random, _ in
            // Given a valid token whose decoded signature is changed: a bit, a byte, cut, lengthened, or noise
            let kind = random.below(seeds.tokens.count)
            let seed = seeds.tokens[kind]
            var signature = try #require(
                JWSFuzzSeeds.base64URLDecode(String(seed[seed.index(after: seed.lastIndex(of: ".")!)...]))
            )
            .map { $0 }
            let original = signature
            switch random.below(5) {
            case 0: signature[random.below(signature.count)] ^= 1 << UInt8(random.below(8))
            case 1: signature[random.below(signature.count)] = UInt8(truncatingIfNeeded: random.next())
            case 2: signature = Array(signature.prefix(random.below(signature.count)))
            case 3: signature += random.bytes(1 + random.below(8))
            default: signature = random.bytes(64)
            }
            guard signature != original else { return 0 }
            let token = String(signedPart(seed)) + "." + JWSFuzzSeeds.base64URLEncode(signature)

            // Then it never verifies, and the signature is what is blamed
            let reason = await verify(token, kind: kind, verifier: seeds.sandbox)
            #expect(reason == .invalidSignature, "a changed signature gave \(String(describing: reason))")
            return 1
        }
    }
}
