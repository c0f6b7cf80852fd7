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
}
