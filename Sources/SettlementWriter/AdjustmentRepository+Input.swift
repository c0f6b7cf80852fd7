import Database
import Foundation

extension AdjustmentRepository.Request {
    /// A request from what an operator typed (the CLI's options, the console's form), or a
    /// refusal that names the field. The engine checks the rest (the account, the currency,
    /// the entitlement against the catalog) when it is applied.
    ///
    /// - Parameters:
    ///   - amount: A whole number, signed: negative takes back.
    ///   - until: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date and time.
    public static func parse(
        accountID: String, currency: String?, amount: String?, entitlement: String?, until: String?, reason: String?,
        operatorName: String, idempotencyKey: String
    ) throws(AdjustmentRepository.Refusal) -> Self {
        func given(_ text: String?) -> String? {
            guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        for (field, text) in [
            ("currency", currency), ("amount", amount), ("entitlement", entitlement), ("until", until),
            ("reason", reason), ("idempotency key", idempotencyKey),
        ] {
            if let text, text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw .invalid("the \(field) holds a control character")
            }
        }
        let change: Change
        switch (given(currency), given(entitlement)) {
        case (let currency?, nil):
            guard let text = given(amount) else { throw .refused("an amount is required (negative takes back)") }
            guard let value = Int(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                throw .invalid("the amount '\(text.prefix(32))' is not a whole number")
            }
            guard abs(value) <= AdjustmentRepository.maximumAmount else {
                throw .invalid("the amount \(value) is beyond ±\(AdjustmentRepository.maximumAmount)")
            }
            change = .currency(currency, amount: value)
        case (nil, let entitlement?):
            guard let text = given(until) else { throw .refused("an entitlement needs the date it ends (until)") }
            guard let date = parseDate(text) else {
                throw .invalid("the date '\(text.prefix(40))' is neither YYYY-MM-DD nor an RFC 3339 date and time")
            }
            guard SQLValue.storableDates.contains(date) else {
                throw .invalid("the date '\(text.prefix(40))' is outside years 1970-9999")
            }
            change = .entitlement(entitlement, until: date)
        case (nil, nil): throw .refused("say what to change: a currency and an amount, or an entitlement")
        case (_?, _?): throw .refused("change a currency or an entitlement, not both at once")
        }
        guard let key = given(idempotencyKey), key.count <= 255 else {
            throw .invalid("the idempotency key must be 1 to 255 characters")
        }
        return Self(
            accountID: accountID, change: change, reason: given(reason) ?? "", operatorName: operatorName,
            idempotencyKey: key)
    }

    /// `YYYY-MM-DD` or RFC 3339, with a four-digit year (Foundation's parser takes five).
    static func parseDate(_ text: String) -> Date? {
        guard text.count >= 10, text.prefix(4).allSatisfy({ ("0"..."9").contains($0) }), text.dropFirst(4).first == "-"
        else {
            return nil
        }
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: text)
    }
}
