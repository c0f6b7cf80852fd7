import Foundation

extension AppReceipt {
    /// The DER bytes a receipt file holds, as an operator saves one: DER as it is (it starts
    /// with a SEQUENCE tag); anything else is read as base64, or as a JSON body carrying
    /// `receipt_data` / `receipt-data`; what is neither is returned as it is, for the verifier
    /// to report malformed.
    public static func bytes(ofFile data: Data) -> [UInt8] {
        if data.first == 0x30 { return Array(data) }
        var text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{"),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let field = (object["receipt_data"] ?? object["receipt-data"]) as? String
        {
            text = field
        }
        guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !decoded.isEmpty else {
            return Array(data)
        }
        return Array(decoded)
    }
}
