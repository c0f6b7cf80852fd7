import Foundation

/// HTML built from Swift strings. Everything that comes from data goes through
/// ``escape(_:)``; markup is only ever written here and in the pages.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A query-string component.
    static func query(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [
            .withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate, .withSpaceBetweenDateAndTime,
        ]
        return formatter.string(from: date) + " UTC"
    }

    /// A whole page: the navigation, the operator's name, and `body`.
    static func page(title: String, operatorName: String?, csrf: String?, body: String) -> String {
        var nav = ""
        if let operatorName {
            nav = """
                <nav><a href="/console">Overview</a> <a href="/console/dead">Dead letters</a> \
                <a href="/console/receipts">Receipts</a> <a href="/console/accounts">Accounts</a> \
                <a href="/console/webhooks">Webhooks</a> <a href="/console/revenue">Revenue</a>
                <form method="post" action="/console/logout" class="inline right">\(csrfField(csrf))\
                <span class="who">\(escape(operatorName))</span> <button type="submit">Log out</button></form></nav>
                """
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · iap console</title>
            <style>\(css)</style></head>
            <body>\(nav)<main><h1>\(escape(title))</h1>
            \(body)
            </main></body></html>
            """
    }

    static func csrfField(_ token: String?) -> String {
        guard let token else { return "" }
        return "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
    }

    /// A form that posts to `action` after the browser's confirmation dialog.
    static func confirmForm(
        action: String, csrf: String?, button: String, confirm: String, fields: String = "", danger: Bool = false
    ) -> String {
        """
        <form method="post" action="\(escape(action))" class="inline" onsubmit="return confirm('\(escape(jsString(confirm)))')">\
        \(csrfField(csrf))\(fields)<button type="submit"\(danger ? " class=\"danger\"" : "")>\(escape(button))</button></form>
        """
    }

    private static func jsString(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            .replacingOccurrences(of: "\n", with: " ")
    }

    static let css = """
        body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
        nav{background:#263238;padding:.6em 1.2em}nav a{color:#fff;margin-right:1.2em;text-decoration:none}
        nav .who{color:#cfd8dc}main{max-width:1200px;margin:0 auto;padding:1em 1.2em}
        table{border-collapse:collapse;width:100%;background:#fff;margin:.5em 0 1.5em}
        th,td{border-bottom:1px solid #e0e0e0;padding:.35em .5em;text-align:left;vertical-align:top}
        th{background:#eceff1;font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.time{white-space:nowrap}th.time{text-align:left}
        .inline{display:inline}.right{float:right}button{cursor:pointer;padding:.2em .7em}
        button.danger{color:#b71c1c}pre{background:#fff;border:1px solid #e0e0e0;padding:.6em;overflow:auto;max-height:24em}
        .notice{background:#e8f5e9;border:1px solid #a5d6a7;padding:.6em}.error{background:#ffebee;border:1px solid #ef9a9a;padding:.6em}
        .alert{background:#fdecea;border:1px solid #f5c2c0;padding:.6em 1em}.cards{display:flex;gap:1em;flex-wrap:wrap}.card{background:#fff;border:1px solid #e0e0e0;padding:.6em 1em;min-width:12em}
        .card b{font-size:1.4em;display:block}input[type=text],input[type=password],input[type=search]{padding:.25em}
        .charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:1em}
        .chart{background:#fff;border:1px solid #e0e0e0;margin:0;padding:.5em .8em}.chart figcaption{font-weight:600}
        .chart svg{width:100%;height:auto}.legend{list-style:none;padding:0;margin:.2em 0;font-size:.85em}
        .legend li{display:inline-block;margin-right:1em}.legend span{display:inline-block;width:.8em;height:.8em;margin-right:.3em}
        code{font-size:.9em}td a,td code{word-break:break-all}td input[type=text]{width:9em;max-width:100%}
        """
}
