import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An HTML answer of the console.
struct ConsolePage: ResponseGenerator {
    var status: HTTPResponse.Status
    var html: String
    var headers: HTTPFields = [:]
    var contentType = "text/html; charset=utf-8"

    init(_ status: HTTPResponse.Status = .ok, _ html: String, headers: HTTPFields = [:]) {
        self.status = status
        self.html = html
        self.headers = headers
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        // Pages are never framed (clickjacking) and load nothing from elsewhere.
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A CSV file the browser saves as `name`.
    static func download(_ csv: String, named name: String) -> ConsolePage {
        var page = ConsolePage(.ok, csv, headers: [.contentDisposition: "attachment; filename=\"\(name)\""])
        page.contentType = "text/csv; charset=utf-8"
        return page
    }

    /// A page that says what went wrong and that nothing changed.
    static func problem(
        _ status: HTTPResponse.Status, title: String, message: String, operatorName: String?, csrf: String?
    )
        -> ConsolePage
    {
        ConsolePage(
            status,
            HTML.page(
                title: title, operatorName: operatorName, csrf: csrf,
                body:
                    "<p class=\"error\">\(HTML.escape(message))</p><p><a href=\"/console\">Back to the overview</a></p>"
            ))
    }
}
