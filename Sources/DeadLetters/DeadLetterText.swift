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

    /// The body as text when it is UTF-8 (pretty when JSON), else base64.
    public static func body(_ data: Data) -> (text: String, encoding: String) {
        guard let text = String(data: data, encoding: .utf8) else { return (data.base64EncodedString(), "base64") }
        return (prettyJSON(text), "utf8")
    }
}
