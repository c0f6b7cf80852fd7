import Hummingbird
import NIOCore

extension Request {
    /// The body of a JSON request, at most `maxSize` bytes.
    /// - Throws: ``APIError`` 415 for another content type, 413 for a larger body.
    func jsonBody(maxSize: Int) async throws -> ByteBuffer {
        guard let contentType = headers[.contentType],
            contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
        else { throw APIError.unsupportedMediaType }
        if let length = headers[.contentLength].flatMap(Int.init), length > maxSize {
            throw APIError.payloadTooLarge
        }
        do {
            return try await body.collect(upTo: maxSize)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge
        }
    }
}
