/// Byte-level mutations of real inputs, as libFuzzer's mutators make them: the inputs that
/// reach deep into a parser are near-misses of valid ones, not pure noise.
public enum FuzzBytes {
    /// Values that sit on boundaries: lengths, signs, ASN.1 tags, JSON syntax.
    static let interesting: [UInt8] = [
        0x00, 0x01, 0x02, 0x04, 0x7F, 0x80, 0x81, 0x82, 0x83, 0x84, 0xFF, 0x30, 0x31, 0x06, 0x0C, 0x16, 0xA0,
        UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "."),
        UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "-"), UInt8(ascii: "="),
    ]

    /// Either random bytes, or one to four mutations of a seed (spliced with another seed
    /// sometimes).
    public static func input(from seeds: [[UInt8]], random: inout FuzzRandom, maxLength: Int = 4096) -> [UInt8] {
        if seeds.isEmpty || random.oneIn(8) { return random.bytes(random.below(maxLength / 8 + 1)) }
        var bytes = random.pick(seeds)
        for _ in 0...random.below(4) { mutate(&bytes, seeds: seeds, random: &random) }
        return Array(bytes.prefix(maxLength))
    }

    /// Applies one mutation to `bytes`.
    public static func mutate(_ bytes: inout [UInt8], seeds: [[UInt8]], random: inout FuzzRandom) {
        let count = bytes.count
        switch random.below(10) {
        case 0 where count > 0:  // flip one bit
            bytes[random.below(count)] ^= 1 << UInt8(random.below(8))
        case 1 where count > 0:  // a boundary value
            bytes[random.below(count)] = random.pick(interesting)
        case 2 where count > 0:  // a random byte
            bytes[random.below(count)] = UInt8(truncatingIfNeeded: random.next())
        case 3:  // insert a few bytes
            bytes.insert(contentsOf: random.bytes(1 + random.below(8)), at: random.below(count + 1))
        case 4 where count > 0:  // delete a range
            let start = random.below(count)
            bytes.removeSubrange(start..<min(count, start + 1 + random.below(16)))
        case 5:  // truncate
            bytes = Array(bytes.prefix(random.below(count + 1)))
        case 6 where count > 0:  // duplicate a range in place
            let start = random.below(count)
            let range = start..<min(count, start + 1 + random.below(64))
            bytes.insert(contentsOf: bytes[range], at: random.below(count + 1))
        case 7 where !seeds.isEmpty:  // splice: this one's head, another's tail
            let other = random.pick(seeds)
            bytes = Array(bytes.prefix(random.below(count + 1))) + other.suffix(random.below(other.count + 1))
        case 8 where count > 1:  // swap two bytes
            bytes.swapAt(random.below(count), random.below(count))
        case 9 where count > 0:  // a boundary value over a run (a length field, say)
            let start = random.below(count)
            let value = random.pick(interesting)
            for index in start..<min(count, start + 1 + random.below(4)) { bytes[index] = value }
        default:
            bytes.append(UInt8(truncatingIfNeeded: random.next()))
        }
    }
}
