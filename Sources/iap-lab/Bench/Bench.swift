import ArgumentParser

extension Lab {
    /// Benchmarks that print figures; the README and BENCHMARKS.md record them.
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure throughput on this machine.",
            subcommands: [
                StagesBench.self, PipelineBench.self, LoadBench.self, BrokerBench.self, ReceiptVerifyBench.self,
                AnswerDecodeBench.self, RevenueBench.self,
            ],
            defaultSubcommand: StagesBench.self
        )
    }
}
