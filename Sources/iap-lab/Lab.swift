import ArgumentParser

/// `iap-lab`: what tests, benchmarks, CI and the demo run beside the product: the stub stores
/// that speak every store's protocol, the benchmarks and the fault drills. It starts `iap`
/// (the executable beside it) for the stages it runs.
struct Lab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap-lab",
        abstract: "The pipeline's lab: stub stores, benchmarks and fault drills, beside the iap executable.",
        subcommands: [StubStoreCommand.self, Bench.self, Chaos.self]
    )
}
