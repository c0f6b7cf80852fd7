/// Whether two byte strings are equal, in time that depends only on their lengths: for
/// comparing secrets and their digests, so that timing tells nothing about a prefix.
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}
