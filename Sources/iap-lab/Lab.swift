import ArgumentParser
import IAPCommands

/// `iap-lab`: what tests, benchmarks, CI and the demo run beside the product: the stub stores
/// that speak every store's protocol, the benchmarks and the fault drills. It starts `iap`
/// (the executable beside it) for the stages it runs.
struct Lab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap-lab",
        abstract: "The pipeline's lab: stub stores, benchmarks and fault drills, beside the iap executable.",
        subcommands: [StubStoreCommand.self, Bench.self, Chaos.self, IAP.self]
    )

    /// Where the lab's stub SNS serves its certificates (`http://127.0.0.1:8090/amazon/sns/`):
    /// trusted by `iap-lab iap <command>` beside Amazon SNS's.
    static let snsCertificatesVariable = "IAP_LAB_SNS_CERTIFICATES"
}
