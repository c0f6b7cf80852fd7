import Foundation
import PipelineCore

/// A seedable generator (SplitMix64), so a fuzz run with a given seed makes the same inputs
/// on every machine and a failure can be replayed.
public struct FuzzRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    public mutating func next() -> UInt64 { generator.next() }

    /// A number in `0..<bound` (0 when `bound` is not positive).
    public mutating func below(_ bound: Int) -> Int {
        bound > 0 ? Int.random(in: 0..<bound, using: &self) : 0
    }

    /// True about once in `n` draws.
    public mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// One of `choices`; they must not be empty.
    public mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
}

/// How long a fuzz target runs: a bounded default for CI, longer through the environment.
///
/// - `IAP_FUZZ_ITERATIONS`: inputs per target (default: each target's own, a few hundred).
/// - `IAP_FUZZ_SEED`: the first seed (default 0x1A9_F022, fixed so CI runs the same inputs).
///   Input `i` of a target is made from a generator seeded with `seed + i`, so a failing
///   input is replayed with `IAP_FUZZ_SEED=<seed + i> IAP_FUZZ_ITERATIONS=1`.
public struct FuzzBudget: Sendable {
    public static let defaultSeed: UInt64 = 0x1A9_F022

    public let iterations: Int
    public let seed: UInt64

    public init(defaultIterations: Int, environment: [String: String] = ProcessInfo.processInfo.environment) {
        iterations = environment["IAP_FUZZ_ITERATIONS"].flatMap { Int($0) }.map { max(1, $0) } ?? defaultIterations
        seed = environment["IAP_FUZZ_SEED"].flatMap { UInt64($0) } ?? Self.defaultSeed
    }

    /// Runs `body` once per input with that input's generator, then prints the throughput so
    /// long runs can be measured. `body` returns the number of inputs it tried (a target may
    /// try several variants of one input).
    public func run(
        _ target: String, _ body: (inout FuzzRandom, _ index: Int) async throws -> Int
    ) async rethrows {
        let clock = ContinuousClock()
        let start = clock.now
        var inputs = 0
        for index in 0..<iterations {
            var random = FuzzRandom(seed: seed &+ UInt64(index))
            inputs += try await body(&random, index)
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Int(Double(inputs) / seconds) : inputs
        print("fuzz \(target): \(inputs) inputs in \(String(format: "%.2f", seconds)) s (\(rate)/s), seed \(seed)")
    }
}
