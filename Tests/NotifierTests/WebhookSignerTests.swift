import Foundation
import Notifier
import PipelineCore
import Testing

@Suite struct WebhookSignerTests {
    /// The example in the Standard Webhooks reference libraries' tests (svix's too).
    let vector = (
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
        timestamp: Int64(1_614_265_330), body: #"{"test": 2432232314}"#,
        signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )

    @Test func signatureMatchesTheStandardWebhooksVector() throws {
        let signer = WebhookSigner(secret: try WebhookSecret(vector.secret))

        let signature = signer.signature(id: vector.id, timestamp: vector.timestamp, body: Array(vector.body.utf8))

        #expect(signature == vector.signature)
    }

    @Test func headersCarryIdTimestampSignatureAndContentType() throws {
        let signer = WebhookSigner(secret: try WebhookSecret(vector.secret))
        let at = Date(timeIntervalSince1970: Double(vector.timestamp) + 0.75)

        let headers = Dictionary(
            uniqueKeysWithValues: signer.headers(id: vector.id, timestamp: at, body: Array(vector.body.utf8))
                .map { ($0.name, $0.value) })

        #expect(headers["content-type"] == "application/json")
        #expect(headers["webhook-id"] == vector.id)
        #expect(headers["webhook-timestamp"] == "1614265330")
        #expect(headers["webhook-signature"] == vector.signature)
    }

    @Test func verifyAcceptsTheVectorAndAnyOfSeveralSignatures() throws {
        let signer = WebhookSigner(secret: try WebhookSecret(vector.secret))
        let now = Date(timeIntervalSince1970: Double(vector.timestamp) + 299)

        try signer.verify(
            id: vector.id, timestamp: String(vector.timestamp), signature: vector.signature,
            body: Array(vector.body.utf8), now: now)
        // A rotating sender may send several; one good one is enough.
        try signer.verify(
            id: vector.id, timestamp: String(vector.timestamp), signature: "v1,bm9wZQ== v2,abc " + vector.signature,
            body: Array(vector.body.utf8), now: now)
    }

    @Test(arguments: [
        ("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", #"{"test": 2432232315}"#),  // body
        ("msg_p5jXN8AQM9LWM0D4loKWxJeK", "1614265330", #"{"test": 2432232314}"#),  // id
        ("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265331", #"{"test": 2432232314}"#),  // timestamp
    ])
    func verifyRejectsATamperedDelivery(id: String, timestamp: String, body: String) throws {
        let signer = WebhookSigner(secret: try WebhookSecret(vector.secret))

        #expect {
            try signer.verify(
                id: id, timestamp: timestamp, signature: vector.signature, body: Array(body.utf8),
                now: Date(timeIntervalSince1970: Double(vector.timestamp)))
        } throws: { ($0 as? WebhookVerificationError)?.code == .noMatchingSignature }
    }

    @Test func verifyRejectsAnotherSecretAndStaleOrFutureTimestamps() throws {
        let signer = WebhookSigner(secret: try WebhookSecret(vector.secret))
        let other = WebhookSigner(secret: .generate())
        let body = Array(vector.body.utf8)
        let signedAt = Date(timeIntervalSince1970: Double(vector.timestamp))

        func code(_ verifier: WebhookSigner, now: Date, signature: String? = nil) -> WebhookVerificationError.Code? {
            do {
                try verifier.verify(
                    id: vector.id, timestamp: String(vector.timestamp), signature: signature ?? vector.signature,
                    body: body, now: now)
                return nil
            } catch {
                return error.code
            }
        }

        #expect(code(other, now: signedAt) == .noMatchingSignature)
        #expect(code(signer, now: signedAt.addingTimeInterval(301)) == .timestampTooOld)
        #expect(code(signer, now: signedAt.addingTimeInterval(-301)) == .timestampTooNew)
        #expect(code(signer, now: signedAt.addingTimeInterval(300)) == nil)
        #expect(code(signer, now: signedAt, signature: "v2," + vector.signature.dropFirst(3)) == .noMatchingSignature)
    }

    @Test func verifyNamesAMissingHeader() throws {
        let signer = WebhookSigner(secret: try WebhookSecret(vector.secret))

        #expect {
            try signer.verify(id: vector.id, timestamp: nil, signature: vector.signature, body: [UInt8]())
        } throws: { ($0 as? WebhookVerificationError)?.code == .missingHeader }
    }
}

@Suite struct WebhookSecretTests {
    @Test(arguments: [
        "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",  // no prefix
        "whsec_",  // no key
        "whsec_not base64!",  // not base64
        "whsec_" + Data(count: 16).base64EncodedString(),  // too short
        "whsec_" + Data(count: 65).base64EncodedString(),  // too long
    ])
    func aMalformedSecretIsRejectedNamingTheVariable(_ value: String) {
        #expect {
            _ = try WebhookSecret(value)
        } throws: { error in
            // Named, and not echoed: a near-miss secret must not land in the logs.
            guard let error = error as? SettingError else { return false }
            return error.variable == "IAP_WEBHOOK_SECRET" && !error.description.contains(value)
        }
    }

    @Test func keysOf24To64BytesAreAccepted() throws {
        for size in [24, 32, 64] {
            let secret = try WebhookSecret("whsec_" + Data(repeating: 7, count: size).base64EncodedString())
            #expect(secret.key.bitCount == size * 8)
        }
    }

    @Test func aGeneratedSecretRoundTripsAndIsNotLogged() throws {
        let secret = WebhookSecret.generate()
        let again = WebhookSecret.generate()

        #expect(try WebhookSecret(secret.encoded) == secret)
        #expect(secret != again)
        #expect(secret.key.bitCount == 256)
        #expect(!"\(secret)".contains(secret.encoded.dropFirst(6)))
    }
}

/// A secret rotation: both secrets sign, a receiver with either verifies.
@Suite struct WebhookSecretRotationTests {
    @Test func duringARotationEachDeliveryCarriesBothSignaturesAndEitherSecretVerifies() throws {
        let old = WebhookSecret.generate()
        let new = WebhookSecret.generate()
        let signer = WebhookSigner(secret: new, additionalSecrets: [old])
        let body = Array(#"{"type":"receipt.credited"}"#.utf8)
        let now = Date()
        let signature = signer.signature(id: "evt_1", timestamp: Int64(now.timeIntervalSince1970), body: body)

        // Two `v1,` entries separated by a space, as Standard Webhooks writes them
        let entries = signature.split(separator: " ")
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.hasPrefix("v1,") })
        // A receiver still on the old secret, and one already on the new, both accept it
        for receiver in [WebhookSigner(secret: old), WebhookSigner(secret: new)] {
            try receiver.verify(
                id: "evt_1", timestamp: String(Int64(now.timeIntervalSince1970)), signature: signature, body: body,
                now: now)
        }
        // A third secret does not
        #expect(throws: WebhookVerificationError.self) {
            try WebhookSigner(secret: WebhookSecret.generate()).verify(
                id: "evt_1", timestamp: String(Int64(now.timeIntervalSince1970)), signature: signature, body: body,
                now: now)
        }
    }

    @Test(arguments: [" ", ",", ", "])
    func theSettingTakesTwoSecretsSeparatedBySpaceOrComma(separator: String) throws {
        let new = WebhookSecret.generate()
        let old = WebhookSecret.generate()
        let settings = try NotifierSettings(
            environment: EnvironmentReader([
                "IAP_WEBHOOK_URL": "http://127.0.0.1:9/hooks",
                "IAP_WEBHOOK_SECRET": new.encoded + separator + old.encoded,
            ]), apps: nil)
        #expect(settings.secret == new)
        #expect(settings.configuration().additionalSecrets == [old])
    }

    @Test func threeSecretsOrAMalformedSecondAreRefusedWithoutRepeatingThem() {
        let secrets = (0..<3).map { _ in WebhookSecret.generate().encoded }
        for value in [secrets.joined(separator: " "), secrets[0] + " whsec_notbase64!"] {
            do {
                _ = try NotifierSettings(
                    environment: EnvironmentReader([
                        "IAP_WEBHOOK_URL": "http://127.0.0.1:9/", "IAP_WEBHOOK_SECRET": value,
                    ]), apps: nil)
                Issue.record("accepted \(value.count) characters of secrets")
            } catch {
                #expect(error.variable == "IAP_WEBHOOK_SECRET")
                #expect(!secrets.contains { error.description.contains($0) })
            }
        }
    }
}
