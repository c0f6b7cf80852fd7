import AppStore
import Foundation

/// `iap receipt inspect`'s text: the receipt's facts, its purchases, then each check.
struct ReceiptReport {
    let inspection: AppReceiptInspection

    init(_ inspection: AppReceiptInspection) {
        self.inspection = inspection
    }

    var text: String {
        var lines: [String] = []
        func line(_ label: String, _ value: String) {
            lines.append(label.padding(toLength: 14, withPad: " ", startingAt: 0) + value)
        }
        if let receipt = inspection.receipt {
            line("environment", receipt.rawEnvironment ?? "-")
            line("bundle id", receipt.bundleID ?? "-")
            line("app version", "\(receipt.appVersion ?? "-") (first bought: \(receipt.originalAppVersion ?? "-"))")
            line("created", Self.date(receipt.creationDate))
            if let expires = receipt.expirationDate { line("expires", Self.date(expires)) }
            line("purchases", "\(receipt.inAppPurchases.count)")
            for purchase in receipt.inAppPurchases {
                var parts = [
                    purchase.transactionID ?? "-", purchase.productID ?? "-", "x\(purchase.quantity ?? 1)",
                    "bought \(Self.date(purchase.purchaseDate))",
                ]
                if let original = purchase.originalTransactionID, original != purchase.transactionID {
                    parts.append("original \(original)")
                }
                if let expires = purchase.expiresDate { parts.append("expires \(Self.date(expires))") }
                if let cancelled = purchase.cancellationDate { parts.append("CANCELLED \(Self.date(cancelled))") }
                lines.append("  " + parts.joined(separator: "  "))
            }
        }
        for (index, subject) in inspection.certificates.enumerated() {
            line(index == 0 ? "certificates" : "", subject)
        }
        line("signature", Self.describe(inspection.signature))
        if let chain = inspection.chain {
            let at = inspection.validatedAt.map { " at \(Self.date($0))" } ?? ""
            line("chain", Self.describe(chain) + (chain.ok ? at : ""))
        }
        if let bundle = inspection.bundle { line("bundle", Self.describe(bundle)) }
        line("verdict", inspection.valid ? "valid" : "NOT VALID")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ check: AppReceiptInspection.Check) -> String {
        check.ok ? "ok" : "FAILED \(check.reason ?? ""): \(check.detail ?? "")"
    }

    private static func date(_ date: Date?) -> String {
        date.map { ISO8601DateFormatter().string(from: $0) } ?? "-"
    }
}
