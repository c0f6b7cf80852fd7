import Foundation

/// A message read from a ``JSONTape`` on the hot path, and by `JSONDecoder` where the tape will
/// not judge it, so that both ways give the same value, or both none.
public protocol TapeDecodable: Decodable {
    /// What `init(from:)` reads, from a tape; ``JSONTape/Unsure`` wherever `init(from:)` throws.
    init(_ value: JSONTape.Value) throws(JSONTape.Unsure)
}

extension TapeDecodable {
    /// Decodes `body` as `decoder` does (nil where it throws), first from a tape.
    public static func decode(_ body: [UInt8], orWith decoder: @autoclosure () -> JSONDecoder = WireCoding.decoder())
        -> Self?
    {
        if let tape = JSONTape(body), let value = try? Self(tape.root) { return value }
        return try? decoder().decode(Self.self, from: Data(body))
    }
}
