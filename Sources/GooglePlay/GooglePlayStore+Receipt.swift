import Foundation
import PipelineCore
import StorePlugins

// MARK: - The `google_play` member of `POST /v1/receipts`

extension GooglePlayStore {
    /// The member of `POST /v1/receipts` that carries a Play purchase.
    public static let member = "google_play"
    /// The kind of a purchase's evidence.
    static let purchaseKind = "purchase"

    /// `google_play`: `{"package_name", "product_id", "purchase_token"}`, each checked.
    /// Pure: no I/O. - Throws: `invalid_google_play` naming the member at fault, or
    /// `unknown_field` for a member Google's purchase does not have.
    public static func purchase(member value: Any) throws(StoreInputError) -> GooglePlayPurchase {
        guard let fields = value as? [String: Any] else {
            throw .invalid("invalid_google_play", "google_play must be an object", member: member)
        }
        let allowed: Set = ["package_name", "product_id", "purchase_token"]
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .invalid("unknown_field", "unknown field google_play.\(unknown)", member: "google_play.\(unknown)")
        }
        func text(_ name: String, _ rule: String, _ isValid: (String) -> Bool) throws(StoreInputError) -> String {
            guard let value = fields[name] as? String, isValid(value) else {
                throw .invalid("invalid_google_play", "google_play.\(name) \(rule)", member: "google_play.\(name)")
            }
            return value
        }
        // Package names are Java-style: letters, digits and underscores, in dot-separated parts.
        let package = try text("package_name", "must be an application id such as com.example.game") { name in
            (3...255).contains(name.utf8.count) && name.contains(".")
                && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
                    part.first.map { $0.isASCII && $0.isLetter } == true
                        && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                }
        }
        let product = try text("product_id", "must be 1-256 of a-z 0-9 . _") { id in
            (1...256).contains(id.utf8.count)
                && id.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "_") }
        }
        let token = try text("purchase_token", "must be 1-4096 visible ASCII characters") { token in
            (1...4096).contains(token.utf8.count)
                && token.allSatisfy { $0.isASCII && !$0.isWhitespace && $0.asciiValue! > 32 }
        }
        return GooglePlayPurchase(packageName: package, productID: product, purchaseToken: token)
    }
}

// MARK: - Google's evidence

extension StoreEvidence {
    /// A Play purchase as Google's evidence: its canonical JSON, kind `purchase` (kept in
    /// receipts rows as `google_play`).
    public static func googlePlay(_ purchase: GooglePlayPurchase) -> StoreEvidence {
        StoreEvidence(store: GooglePlayStore.id, kind: GooglePlayStore.purchaseKind, payload: purchase.canonicalJSON)
    }

    /// A pushed notice as Google's evidence: its canonical JSON, kind `notification`.
    public static func googleNotice(_ notice: GoogleNotice) -> StoreEvidence {
        StoreEvidence(store: GooglePlayStore.id, kind: notificationKind, payload: notice.canonicalJSON)
    }
}

extension Evidence {
    /// A Play purchase to verify with Google.
    public static func googlePlay(_ purchase: GooglePlayPurchase) -> Evidence { .store(.googlePlay(purchase)) }

    /// A notice Google pushed, to read back from Google.
    public static func googleNotice(_ notice: GoogleNotice) -> Evidence { .store(.googleNotice(notice)) }
}

// MARK: - Which app it names

extension GooglePlayStore {
    /// The package a purchase or a notice names: Google's answer is about that package, so
    /// another app's purchase is refused before Google is asked.
    public static func identity(namedBy evidence: StoreEvidence) -> String? {
        if evidence.kind == StoreEvidence.notificationKind {
            return GoogleNotice(canonicalJSON: evidence.payload)?.packageName
        }
        return GooglePlayPurchase(canonicalJSON: evidence.payload)?.packageName
    }
}
