import Foundation
import Testing
import Xiaomi

/// Xiaomi's signature as its documentation defines it (游戏SDK服务端接口, 2024-11-07): HMAC-SHA1
/// keyed with the AppSecret, lowercase hex, over the parameters with a value, sorted by name,
/// `signature` left out, values as they are. Xiaomi publishes no vector with its secret, so the
/// signature is held to another implementation's (Python's `hmac`) and the text to the rules.
@Suite struct XiaomiSignatureTests {
    /// A notice of the shape Xiaomi's documentation shows, signed by Python's `hmac` (an
    /// implementation of its own): `hmac.new(secret, text, hashlib.sha1).hexdigest()`.
    @Test func aDocumentedNoticeSignsAsAnotherImplementationSignsIt() {
        let parameters = [
            "appId": "2882303761517239138", "cpOrderId": "9786bffc-996d-4553-aa33-f7e92c0b29d5", "cpUserInfo": "",
            "uid": "100010", "orderId": "21140990160359583390", "orderStatus": "TRADE_SUCCESS", "payFee": "1",
            "productCode": "com.demo_1", "productName": "银子1两", "productCount": "1",
            "payTime": "2014-09-05 15:20:27", "orderConsumeType": "10",
        ]
        let signer = XiaomiSignature(secret: "dHmP6N7Sf+1ixRoMbJgS4w==")
        #expect(signer.sign(parameters) == "78749bde4eb62ac81ccf537a6e542658d789aac9")
        #expect(signer.isValid("78749bde4eb62ac81ccf537a6e542658d789aac9", of: parameters))
    }

    @Test func theSignedTextIsSortedWithoutEmptiesOrTheSignatureWithRawValues() {
        let text = XiaomiSignature.signedText([
            "uid": "100010", "appId": "2882303761517239138", "cpUserInfo": "", "signature": "abc",
            "payTime": "2024-11-07 13:56:00", "productName": "银子1两", "cpOrderId": "ord-1",
        ])
        #expect(
            text == "appId=2882303761517239138&cpOrderId=ord-1&payTime=2024-11-07 13:56:00&productName=银子1两&uid=100010")
    }

    @Test func aSignatureHoldsInEitherCaseAndNothingElseDoes() {
        let parameters = ["appId": "1", "cpOrderId": "o", "uid": "u"]
        let signer = XiaomiSignature(secret: "the-app-secret")
        let signed = signer.sign(parameters)
        #expect(signed == signed.lowercased() && signed.count == 40)
        #expect(signer.isValid(signed, of: parameters))
        #expect(signer.isValid(signed.uppercased(), of: parameters))
        #expect(!signer.isValid(String(signed.dropLast()), of: parameters))
        #expect(!signer.isValid(signed + "00", of: parameters))
        #expect(!signer.isValid("zz" + signed.dropFirst(2), of: parameters))
        #expect(!XiaomiSignature(secret: "another-secret").isValid(signed, of: parameters))
        #expect(!signer.isValid(signed, of: parameters.merging(["uid": "v"]) { $1 }))
    }
}
