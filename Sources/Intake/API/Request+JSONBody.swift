import Hummingbird
import NIOCore
import PipelineCore

extension Request {
    /// The body of a JSON request, at most `maxSize` bytes.
    /// - Throws: ``APIError`` 415 for another content type, 413 for a larger body.
    func jsonBody(maxSize: Int) async throws -> ByteBuffer {
        guard isJSON else { throw APIError.unsupportedMediaType }
        return try await collectBody(maxSize: maxSize)
    }

    /// The body of a request whose JSON body is optional: empty, or JSON of at most `maxSize` bytes.
    func optionalJSONBody(maxSize: Int) async throws -> ByteBuffer {
        let body = try await collectBody(maxSize: maxSize)
        guard body.readableBytes == 0 || isJSON else { throw APIError.unsupportedMediaType }
        return body
    }

    var isJSON: Bool {
        headers[.contentType]?.split(separator: ";").first?.trimmedOfWhitespace.lowercased()
            == "application/json"
    }

    private func collectBody(maxSize: Int) async throws -> ByteBuffer {
        if let length = headers[.contentLength].flatMap(Int.init), length > maxSize {
            throw APIError.payloadTooLarge(limit: maxSize)
        }
        do {
            return try await body.collect(upTo: maxSize)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge(limit: maxSize)
        }
    }
}
