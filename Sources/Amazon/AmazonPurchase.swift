import Foundation
import PipelineCore
import StorePlugins

/// An Amazon Appstore purchase as a backend posts it, the `amazon` member of
/// `POST /v1/receipts`: what the Appstore SDK's `PurchaseResponse` gave the app, the user's id
/// (`getUserData().getUserId()`) and the receipt's (`getReceipt().getReceiptId()`), and, when
/// the backend says, the app's package name. Only RVS's answer is believed.
public struct AmazonPurchase: Sendable, Hashable {
    public static let member = "amazon"

    public var userID: String
    public var receiptID: String
    /// The app the backend says the purchase is of; refused before RVS is asked when it is another's.
    public var packageName: String?

    public init(userID: String, receiptID: String, packageName: String? = nil) {
        self.userID = userID
        self.receiptID = receiptID
        self.packageName = packageName
    }

    /// The `amazon` member checked: `user_id` (1-128 characters) and `receipt_id` (1-200, as
    /// Amazon bounds them), `package_name` optional.
    /// - Throws: ``StoreInputError`` naming the member at fault.
    public init(member value: Any) throws(StoreInputError) {
        let object = try StoreInput.object(
            value, member: Self.member, allowed: ["user_id", "receipt_id", "package_name"])
        let user = try StoreInput.string(object, "user_id", in: Self.member, maxLength: 128)!
        let receipt = try StoreInput.string(object, "receipt_id", in: Self.member, maxLength: 200)!
        let package = try StoreInput.string(object, "package_name", in: Self.member, required: false, maxLength: 255)
        if let package, !Self.isPackageName(package) {
            throw .invalid(
                "invalid_field", "amazon.package_name must be a package name (com.example.app)",
                member: "amazon.package_name")
        }
        self.init(userID: user, receiptID: receipt, packageName: package)
    }

    /// The canonical JSON kept as the evidence's payload.
    public var payload: String {
        var members = ["user_id": userID, "receipt_id": receiptID]
        members["package_name"] = packageName
        return StoreInput.canonicalJSON(members)
    }

    /// The purchase a payload written by ``payload`` holds; nil for anything else.
    public init?(payload: String) {
        guard let members = StoreInput.members(payload), let user = members["user_id"],
            let receipt = members["receipt_id"]
        else { return nil }
        self.init(userID: user, receiptID: receipt, packageName: members["package_name"])
    }

    /// Whether `text` reads as an Android package name: dot-separated segments of letters,
    /// digits and `_`, each starting with a letter, two or more.
    static func isPackageName(_ text: String) -> Bool {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 255, segments.count >= 2 else { return false }
        return segments.allSatisfy { segment in
            guard let first = segment.utf8.first, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first)
            else { return false }
            return segment.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F
            }
        }
    }
}
