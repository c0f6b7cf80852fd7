/// A field of a CSV line (RFC 4180): quoted when it holds a comma, a quote or a line break,
/// its quotes doubled.
public enum CSVField {
    public static func quoted(_ field: String) -> String {
        field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }
}
