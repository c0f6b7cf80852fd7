import AppStore
import Foundation
import StubStore
import Testing

/// `SignedDataAuthenticator`: what the intake checks before it stores an Apple notification,
/// and the cache of validated chains that makes the check one ECDSA verification.
@Suite struct SignedDataAuthenticatorTests {
    typealias F = SignedDataFixtures

    static func notification(_ authority: TestCertificateAuthority, signedDate: Date = F.signedDate) -> String {
        authority.signer.signNotification(
            ResponseBodyV2DecodedPayload(
                notificationType: .test, notificationUUID: UUID().uuidString, version: "2.0", signedDate: signedDate))
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test func aNotificationSignedUnderTheRootIsAuthenticTwiceAndWithAnotherPayload() async throws {
        let authority = try F.authority()
        let apple = try SignedDataAuthenticator(rootCertificates: [authority.rootDER])
        try await apple.authenticate(Self.notification(authority))
        // The second, from the cached chain
        try await apple.authenticate(Self.notification(authority))
    }

    @Test func theForgedHeaderOfIssue25IsNotAuthentic() async throws {
        let apple = try SignedDataAuthenticator(rootCertificates: [try F.authority().rootDER])
        let forged = [
            Self.base64URL(#"{"alg":"ES256","x5c":["AAAA","AAAA","AAAA"]}"#),
            Self.base64URL(#"{"notificationType":"TEST","signedDate":1767225600000}"#), Self.base64URL("sig"),
        ].joined(separator: ".")
        #expect(await F.failure { try await apple.authenticate(forged) } == .invalidChain)
    }

    @Test func anotherRootsNotificationIsNotAuthentic() async throws {
        let apple = try SignedDataAuthenticator(rootCertificates: [try F.authority().rootDER])
        #expect(await F.failure { try await apple.authenticate(Self.notification(try F.authority())) } == .invalidChain)
    }

    @Test func aCachedChainStillNeedsTheSignature() async throws {
        // Given a chain cached by a good notification
        let authority = try F.authority()
        let apple = try SignedDataAuthenticator(rootCertificates: [authority.rootDER])
        let good = Self.notification(authority)
        try await apple.authenticate(good)

        // Then the same header over another payload, or with a zeroed signature, fails the signature
        let parts = good.split(separator: ".").map(String.init)
        let otherPayload = Self.notification(authority).split(separator: ".")[1]
        let swapped = [parts[0], String(otherPayload), parts[2]].joined(separator: ".")
        #expect(await F.failure { try await apple.authenticate(swapped) } == .invalidSignature)
        let zeroed = [parts[0], parts[1], Data(count: 64).base64EncodedString()].joined(separator: ".")
            .replacingOccurrences(of: "=", with: "")
        #expect(await F.failure { try await apple.authenticate(zeroed) } == .invalidSignature)
    }

    @Test func aCachedChainHoldsOnlyWithinItsValidity() async throws {
        // Given a chain cached at a time it is valid
        let authority = try F.authority()
        let apple = try SignedDataAuthenticator(rootCertificates: [authority.rootDER])
        try await apple.authenticate(Self.notification(authority))

        // Then a payload signed after the certificates expired is refused, cache or not
        let late = Self.notification(authority, signedDate: F.notAfter.addingTimeInterval(86_400))
        #expect(await F.failure { try await apple.authenticate(late) } == .invalidChain)
        let early = Self.notification(authority, signedDate: F.notBefore.addingTimeInterval(-86_400))
        #expect(await F.failure { try await apple.authenticate(early) } == .invalidChain)
    }

    @Test func theVerifierSharesItsAuthenticator() async throws {
        let authority = try F.authority()
        let verifier = try F.verifier(trusting: authority)
        try await verifier.authenticator.authenticate(Self.notification(authority))
    }
}
