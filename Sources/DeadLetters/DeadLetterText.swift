import Foundation

/// Text forms of archived letters shared by the CLI and the console.
public enum DeadLetterText {
    /// A JSON document indented for reading, or the text itself when it is not JSON.
    public static func prettyJSON(_ text: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed])
        else { return text }
        return String(decoding: data, as: UTF8.self)
    }

    /// Every failed verify attempt the validator logged on the letter (`x-iap-attempt-log`),
    /// oldest first; empty for letters that never reached a validator.
    public static func attemptLog(inHeaders json: String) -> [String] {
        guard let headers = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return []
        }
        return headers["x-iap-attempt-log"] as? [String] ?? []
    }

    /// The body as text when it is UTF-8 (pretty when JSON), else base64.
    public static func body(_ data: Data) -> (text: String, encoding: String) {
        guard let text = String(data: data, encoding: .utf8) else { return (data.base64EncodedString(), "base64") }
        return (prettyJSON(text), "utf8")
    }
}

/// One entry of RabbitMQ's `x-death` header, as archived: a queue the message left
/// (expired from a retry tier, rejected, or past the delivery limit), how often, and when last.
public struct DeathRecord: Hashable, Sendable {
    public var queue: String
    public var reason: String
    public var count: Int
    public var time: Date?

    /// The `x-death` entries of an archived letter's headers (JSON), most recent first.
    public static func all(inHeaders json: String) -> [DeathRecord] {
        guard let headers = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let deaths = headers["x-death"] as? [[String: Any]]
        else { return [] }
        return deaths.map { death in
            DeathRecord(
                queue: death["queue"] as? String ?? "", reason: death["reason"] as? String ?? "",
                count: (death["count"] as? NSNumber)?.intValue ?? 0,
                time: (death["time"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) })
        }
    }
}
