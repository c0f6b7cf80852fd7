import Foundation
import PipelineCore
import StorePlugins
import Testing

@testable import Amazon

/// RVS's request and answer as Amazon documents them ("RVS Examples", the RVS Cloud Sandbox
/// example), and the posted member and settings checked.
@Suite struct AmazonReceiptTests {
    static let sandboxUser = "l3HL7XppEMhrOGDnur9-ulvqomrSg6qyODKmah76lJU="
    static let sandboxReceipt =
        "q1YqVbJSyjH28DGPKChw9c0o8nd3ySststQtzSkrzM8tCk43K6z0d_HOTcwwN8vxCrVV0lEqBmpJzs_VS8xNrMrP0ysuTSo2BAqXKFkZ6"
        + "SilACUNzQxMzAyNjYyNDQ3MgDKJSlZpiTnFqTpK6UpWJUWlQEYahFELAA"

    @Test func theRequestIsAmazonsDocumentedSandboxURL() throws {
        let settings = try #require(
            try AmazonSettings(
                environment: EnvironmentReader([
                    "IAP_AMAZON_SHARED_SECRET": "developerSecret", "IAP_AMAZON_PACKAGE_NAME": "com.amazon.sample",
                    "IAP_AMAZON_ENVIRONMENT": "sandbox",
                ])))
        #expect(
            settings.verifyURL(userID: Self.sandboxUser, receiptID: Self.sandboxReceipt)
                == "https://appstore-sdk.amazon.com/sandbox/version/1.0/verifyReceiptId/developer/developerSecret/user/"
                + Self.sandboxUser + "/receiptId/" + Self.sandboxReceipt)
        #expect(settings.verifyURL(userID: "a/b", receiptID: "r%").hasSuffix("/user/a%2Fb/receiptId/r%25"))
    }

    @Test func theDocumentedSandboxAnswerReadsAsASubscription() throws {
        let answer = """
            {"autoRenewing": false, "betaProduct": false, "cancelDate": null, "cancelReason": null,
             "deferredDate": null, "deferredSku": null, "freeTrialEndDate": 1606985788979,
             "gracePeriodEndDate": 1606985788979, "parentProductId": null, "productId": "com.amazon.subs1",
             "productType": "SUBSCRIPTION", "promotions": null, "purchaseDate": 1604613233106, "quantity": 1,
             "receiptId": "\(Self.sandboxReceipt)", "renewalDate": 1606985788979, "term": "1 Week",
             "termSku": "com.amazon.subs1_term", "testTransaction": true}
            """
        let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        let receipt = try #require(AmazonReceipt(json: json))
        #expect(receipt.productID == "com.amazon.subs1" && receipt.productType == .subscription)
        #expect(receipt.purchaseDate == Date(timeIntervalSince1970: 1_604_613_233.106))
        #expect(receipt.renewalDate == Date(timeIntervalSince1970: 1_606_985_788.979))
        #expect(receipt.freeTrialEndDate == receipt.renewalDate && receipt.cancelDate == nil)
        #expect(receipt.quantity == 1 && receipt.isTest)
        #expect(AmazonReceipt(json: receipt.json) == receipt, "the stub writes what it reads")

        var unknownType = json
        unknownType["productType"] = "BUNDLE"
        #expect(AmazonReceipt(json: unknownType) == nil)
        var textDate = json
        textDate["purchaseDate"] = "yesterday"
        #expect(AmazonReceipt(json: textDate) == nil)
    }

    @Test func thePostedMemberIsChecked() throws {
        let store = AmazonStore(settings: AmazonSettings(sharedSecret: "s3cret-shared", packageName: "com.a.b"))
        let evidence = try store.receiptEvidence(["user_id": "u-1", "receipt_id": "r=:1:11"])
        #expect(evidence.payload == #"{"receipt_id":"r=:1:11","user_id":"u-1"}"#)
        #expect(AmazonStore.identity(namedBy: evidence) == nil)
        let named = try store.receiptEvidence(["user_id": "u-1", "receipt_id": "r", "package_name": "com.other.app"])
        #expect(AmazonStore.identity(namedBy: named) == "com.other.app")
        for (member, field) in [
            (["receipt_id": "r"], "amazon.user_id"), (["user_id": "u"], "amazon.receipt_id"),
            (["user_id": "u", "receipt_id": String(repeating: "r", count: 201)], "amazon.receipt_id"),
            (["user_id": "u", "receipt_id": "r", "package_name": "not a package"], "amazon.package_name"),
            (["user_id": "u", "receipt_id": "r", "sku": "x"], "amazon.sku"),
        ] {
            #expect(throws: StoreInputError.self) { try store.receiptEvidence(member) }
            do {
                _ = try store.receiptEvidence(member)
            } catch {
                #expect(error.member == field, "\(member)")
            }
        }
    }

    @Test func settingsNameTheVariableAtFault() throws {
        func problem(_ values: [String: String]) -> String? {
            do {
                _ = try AmazonSettings(environment: EnvironmentReader(values))
                return nil
            } catch {
                return error.variable
            }
        }
        let secret = ["IAP_AMAZON_SHARED_SECRET": "2:smoNRhS2mJv6qLfMX2J_vV0BXG5CTGHwsWqzx"]
        #expect(try AmazonSettings(environment: EnvironmentReader([:])) == nil)
        #expect(problem(secret) == "IAP_AMAZON_PACKAGE_NAME")
        #expect(
            problem(["IAP_AMAZON_SHARED_SECRET": "a b", "IAP_AMAZON_PACKAGE_NAME": "com.a.b"])
                == "IAP_AMAZON_SHARED_SECRET")
        #expect(problem(secret.merging(["IAP_AMAZON_PACKAGE_NAME": "app"]) { $1 }) == "IAP_AMAZON_PACKAGE_NAME")
        #expect(
            problem(secret.merging(["IAP_AMAZON_PACKAGE_NAME": "com.a.b", "IAP_AMAZON_ENVIRONMENT": "live"]) { $1 })
                == "IAP_AMAZON_ENVIRONMENT")
        #expect(
            problem(secret.merging(["IAP_AMAZON_PACKAGE_NAME": "com.a.b", "IAP_AMAZON_RVS_URL": "ftp://x"]) { $1 })
                == "IAP_AMAZON_RVS_URL")
    }
}
