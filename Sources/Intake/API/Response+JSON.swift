import Hummingbird
import NIOCore
import PipelineCore

extension Response {
    /// A JSON answer, encoded as every message of the pipeline is (ISO 8601 dates, sorted keys).
    static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let data = try WireCoding.encoder().encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A JSON answer written by its own ``JSONTextValue`` conformance, which writes what
    /// ``json(_:status:)`` would: for the answers of the hot path.
    static func json(written value: some JSONTextValue, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: value.jsonBytes(capacity: 64))))
    }
}
