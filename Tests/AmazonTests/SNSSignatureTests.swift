import Amazon
import CryptoExtras
import Foundation
import Testing

/// SNS's signatures as AWS documents them ("Verifying the signatures of Amazon SNS messages"),
/// checked against OpenSSL's: the string to sign of Amazon's documented RTN example, signed by
/// `openssl dgst` (SignatureVersion 1 with SHA-1, 2 with SHA-256), holds; any change breaks it.
@Suite struct SNSSignatureTests {
    /// Amazon's SUBSCRIPTION_PURCHASED example (developer.amazon.com, "Real-Time Notifications
    /// Examples"), its `Signature` left for the test to make: Amazon publishes it elided.
    static let documented = """
        {"Type" : "Notification",
         "MessageId" : "b1c4d9bb-0fd9-54b2-8f74-8e59c91e396a",
         "TopicArn" : "arn:aws:sns:us-east-1:033616359524:LT0XA",
         "Message" : "{\\"appPackageName\\":\\"com.example.amazonsdkapivalidator3\\",\\"notificationType\\":\\"SUBSCRIPTION_PURCHASED\\",\\"appUserId\\":\\"io9oFdzmCSMuKk_pp9pYccoIHRfc6kSAAYaNo51xZrg=\\",\\"receiptId\\":\\"koxIn_LO2u7rc-_MF40hKz1vqSSJSlitfTNDeH_JAs8=:3:11\\",\\"relatedReceipts\\":{},\\"timestamp\\":1600701569824,\\"betaProductTransaction\\":false}",
         "Timestamp" : "2020-09-21T15:19:35.686Z",
         "SignatureVersion" : "1",
         "Signature" : "RVhBTVBMRWFiMTIz",
         "SigningCertURL" : "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-a86cb10b4e1f29c941702d737128f7b6.pem",
         "UnsubscribeURL" : "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:033616359524:LT0XA:a745747c-8230-4cd2-84c6-d0e7df9f1ca1"}
        """

    @Test func theStringToSignIsAWSsOrderOfMembers() throws {
        let message = try SNSMessage(body: Array(Self.documented.utf8))
        #expect(message.kind == .notification && message.messageID == "b1c4d9bb-0fd9-54b2-8f74-8e59c91e396a")
        let expected =
            "Message\n\(message.message)\nMessageId\nb1c4d9bb-0fd9-54b2-8f74-8e59c91e396a\n"
            + "Timestamp\n2020-09-21T15:19:35.686Z\nTopicArn\narn:aws:sns:us-east-1:033616359524:LT0XA\n"
            + "Type\nNotification\n"
        #expect(String(decoding: message.stringToSign, as: UTF8.self) == expected)
        let sent = try #require(message.sentAt).timeIntervalSince1970
        #expect(abs(sent - 1_600_701_575.686) < 0.000_5)
    }

    @Test(arguments: [("1", "-sha1"), ("2", "-sha256")])
    func aSignatureOpenSSLMadeHoldsAndAChangeBreaksIt(_ version: String, _ digest: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var message = try SNSMessage(body: Array(Self.documented.utf8))
        message.signatureVersion = version
        let key = directory.appendingPathComponent("key.pem").path
        let input = directory.appendingPathComponent("input").path
        let signature = directory.appendingPathComponent("signature").path
        try Data(message.stringToSign).write(to: URL(fileURLWithPath: input))
        try Self.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key])
        try Self.openssl(["dgst", digest, "-sign", key, "-out", signature, input])
        message.signature = Array(try Data(contentsOf: URL(fileURLWithPath: signature)))
        let publicKey = try _RSA.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: key, encoding: .utf8))
            .publicKey
        #expect(message.isSigned(by: publicKey))

        var changed = message
        changed.message = message.message.replacingOccurrences(of: "PURCHASED", with: "CANCELLED")
        #expect(!changed.isSigned(by: publicKey))
        var otherVersion = message
        otherVersion.signatureVersion = version == "1" ? "2" : "1"
        #expect(!otherVersion.isSigned(by: publicKey))
        otherVersion.signatureVersion = "3"
        #expect(!otherVersion.isSigned(by: publicKey))
    }

    @Test func onlyAmazonSNSsCertificateURLsAreTrusted() {
        #expect(
            SNSCertificateTrust.isAmazons(
                "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-a86cb10b4e1f29c941702d737128f7b6.pem"))
        #expect(
            SNSCertificateTrust.isAmazons("https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-1.pem"))
        for url in [
            "http://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem",
            "https://sns.us-east-1.amazonaws.com.evil.example/SimpleNotificationService-1.pem",
            "https://evil.example/sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem",
            "https://sns.us-east-1.amazonaws.com:8443/SimpleNotificationService-1.pem",
            "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem?x=1",
            "https://sns.us-east-1.amazonaws.com/bucket/SimpleNotificationService-1.pem",
            "https://user@sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem",
            "https://s3.us-east-1.amazonaws.com/SimpleNotificationService-1.pem",
            "https://sns.amazonaws.com/SimpleNotificationService-1.pem",
            "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.crt",
            "https://127.0.0.1/SimpleNotificationService-1.pem",
        ] {
            #expect(!SNSCertificateTrust.isAmazons(url), "\(url)")
        }
    }

    @Test func aBodyThatIsNotAnSNSMessageNamesWhatIsWrong() {
        for (body, member) in [
            ("[]", ""), (#"{"Type":"Other"}"#, "Type"),
            (#"{"Type":"Notification","Signature":"%%%"}"#, "Signature"),
            (#"{"Type":"Notification","Signature":"AAAA","MessageId":"m","TopicArn":"t","Message":"x"}"#, "Timestamp"),
        ] {
            #expect(throws: SNSMessage.Malformed.self, "\(body)") { try SNSMessage(body: Array(body.utf8)) }
            #expect((try? SNSMessage(body: Array(body.utf8))) == nil)
            do {
                _ = try SNSMessage(body: Array(body.utf8))
            } catch {
                #expect(error.member == member, "\(body)")
            }
        }
    }

    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " "))")
    }
}
