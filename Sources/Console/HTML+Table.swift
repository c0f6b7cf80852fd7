import Foundation

extension HTML {
    /// A cell of a ``table(id:columns:rows:)``: its HTML (escaped already) and its class.
    struct Cell {
        var html: String
        var kind: Kind = .text

        enum Kind: String {
            case text = ""
            case num, time
        }

        /// A cell showing `text`, escaped.
        static func text(_ text: String) -> Cell { Cell(html: escape(text)) }
        static func number(_ value: Int) -> Cell { Cell(html: String(value), kind: .num) }
        static func time(_ date: Date?) -> Cell { Cell(html: escape(HTML.time(date)), kind: .time) }
        static func code(_ text: String) -> Cell { Cell(html: "<code>\(escape(text))</code>") }
        static func link(_ text: String, to href: String) -> Cell {
            Cell(html: "<a href=\"\(escape(href))\">\(escape(text))</a>")
        }
    }

    /// A table: a header row from `columns` (numeric ones right-aligned), then `rows`;
    /// each row may carry HTML attributes (`data-receipt="…"`, escaped already).
    static func table(id: String? = nil, columns: [(String, Cell.Kind)], rows: [(attributes: String, cells: [Cell])])
        -> String
    {
        var html = "<table\(id.map { " id=\"\(escape($0))\"" } ?? "")><tr>"
        for (title, kind) in columns {
            html += "<th\(kind == .text ? "" : " class=\"\(kind.rawValue)\"")>\(escape(title))</th>"
        }
        html += "</tr>"
        for row in rows {
            html += "<tr\(row.attributes.isEmpty ? "" : " " + row.attributes)>"
            for cell in row.cells {
                html += "<td\(cell.kind == .text ? "" : " class=\"\(cell.kind.rawValue)\"")>\(cell.html)</td>"
            }
            html += "</tr>"
        }
        return html + "</table>"
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape(value))\">"
    }

    /// The required "why" field of a discard.
    static let whyField = "<input type=\"text\" name=\"reason\" placeholder=\"why (required)\" required>"
}
