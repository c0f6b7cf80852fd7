/// `map` and `filter` whose transform awaits: the stores' statements are async, and a
/// batch is still walked in order, one statement after another, in one transaction.
extension Sequence {
    package func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        result.reserveCapacity(underestimatedCount)
        for element in self { result.append(try await transform(element)) }
        return result
    }

    package func asyncFilter(_ isIncluded: (Element) async throws -> Bool) async rethrows -> [Element] {
        var result: [Element] = []
        for element in self where try await isIncluded(element) { result.append(element) }
        return result
    }
}
