import Foundation
import Hummingbird

/// A stub route's body or member that does not hold what the route takes: answered `400`
/// in the store's own error shape, naming the member, and the stub goes on serving.
struct StubFieldError: Error, Sendable {
    /// `invalid_json`, or `invalid_<member>`.
    var code: String
    /// The member at fault, by its name in the body; nil for the body itself.
    var member: String?
    var message: String
}

/// Reads the JSON bodies of the stub stores' own routes strictly where it matters: a number
/// a stub computes with, or keeps and answers again (quantities, amounts, times), must be
/// a whole number in the range the route takes. A fraction, a number past 64 bits, `1e309`,
/// a string or a boolean is refused rather than rounded, wrapped or trapped on, so that
/// nothing a client sends takes the stub (and `iap up` with it) down.
enum StubField {
    /// The greatest time the stubs take, in seconds since 1970: the last second of the year
    /// 9999. In milliseconds it is far from `Int64`'s end.
    static let latestSecond = 253_402_300_799

    /// The units one purchase may have in any stub: far more than a store sells at once, and
    /// small enough that a price times it stays far from `Int`'s end.
    static let quantities = 1...1_000_000

    /// The JSON object `body` holds; an empty body is an empty object.
    /// - Throws: `invalid_json` for a body that is not a JSON object (`{"quantity": 1e309}`
    ///   among them: JSON without a 64-bit value for it).
    static func object(_ body: ByteBuffer) throws(StubFieldError) -> [String: Any] {
        guard body.readableBytes > 0 else { return [:] }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] else {
            throw StubFieldError(
                code: "invalid_json", member: nil,
                message: "the body must be a JSON object whose numbers are 64-bit values")
        }
        return object
    }

    /// The JSON object of a stub's own (admin) route's body, read as ``object(_:)`` reads it.
    static func body(_ request: Request) async throws -> [String: Any] {
        var request = request
        return try object(try await request.collectBody(upTo: 64 * 1024))
    }

    /// `object` as a JSON answer with `status`.
    static func json(_ object: [String: Any], status: Int) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data()
        return Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `answer`, or `400 {"error", "code"}` naming the member it refused: the answer of a
    /// stub whose store defines no error shape for what the stub adds (Huawei's, Xiaomi's).
    static func checked(_ answer: () async throws -> Response) async throws -> Response {
        do {
            return try await answer()
        } catch let refusal as StubFieldError {
            return json(["error": refusal.message, "code": refusal.code], status: 400)
        }
    }

    /// `fields[name]` as a whole number within `range`; nil when absent or null.
    /// - Throws: `invalid_<name>` naming the range for anything else.
    static func integer(_ fields: [String: Any], _ name: String, in range: ClosedRange<Int>)
        throws(StubFieldError) -> Int?
    {
        guard let value = fields[name], !(value is NSNull) else { return nil }
        // A JSON boolean is a number whose type is a C char; every other number's text is
        // read back exactly (a value past 64 bits, a fraction or an exponent is not an Int).
        guard let number = value as? NSNumber, number.objCType.pointee != CChar(UInt8(ascii: "c")),
            let integer = Int(number.stringValue), range.contains(integer)
        else {
            throw StubFieldError(
                code: "invalid_\(name)", member: name,
                message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return integer
    }

    /// What a `JSONDecoder` refused, told by the member it is about (`quantity: ...`).
    static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            (context.codingPath + (last.map { [$0] } ?? [])).map(\.stringValue).joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context): return "\(path(context, key)) is required"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "the body is not JSON, or holds a number past 64 bits"
                : "\(path(context)): \(context.debugDescription)"
        default: return "the body is not what the route takes"
        }
    }
}
