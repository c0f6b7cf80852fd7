import ArgumentParser
import Broker
import Database
import Foundation
import IAPCommands
import Repositories
import SettlementWriter

extension Lab.Bench.StagesBench {
    /// One validator's own capacity, which the rest of the pipeline on the same cores would
    /// hide: the intake fills the validate queue first, then one `iap validator` starts and
    /// the time until the fulfil queue holds every verdict is its rate (fulfiller stopped).
    func drainWithOneValidator(
        _ stages: StageProcesses, _ pipeline: StagesPipeline, settings: PipelineSettings, count: Int
    ) async throws -> StagesReport.ValidatorAlone {
        // The stages' own database: the SQLite file, or PostgreSQL with --database-url.
        let database = try await pipeline.stageSettings().openDatabase()
        try await ReceiptLoad.waitUntilPublished(in: database, until: .now + .seconds(timeout))
        let fulfilQueue = PipelineTopology(prefix: pipeline.prefix).fulfilQueue
        let broker = try await ReceiptLoad.controlConnection(settings.amqp)
        let verdicts = { () async throws -> Int in
            try await broker.withControlChannel { channel throws(BrokerError) in
                try channel.queueStatus(fulfilQueue).messages
            }
        }

        let start = ContinuousClock.now
        let validator = try pipeline.startValidator(stages, index: 1, concurrency: concurrency)
        let deadline = start + .seconds(timeout)
        do {
            while try await verdicts() < count {
                guard ContinuousClock.now < deadline else {
                    throw ValidationError("the validator did not finish in time")
                }
                if let gone = stages.exited.first { throw ValidationError("\(gone.name) exited; see \(gone.log)") }
                try await Task.sleep(for: .milliseconds(10))
            }
        } catch {
            await broker.close()
            throw error
        }
        await broker.close()
        let elapsed = ContinuousClock.now - start
        let usage = ProcessUsage(pid: validator.pid)
        return StagesReport.ValidatorAlone(
            perSecond: Double(count) / elapsed.seconds, seconds: elapsed.seconds,
            cpuMsPerReceipt: (usage?.cpuSeconds ?? 0) * 1000 / Double(count),
            peakRSSMB: Double(usage?.peakResidentBytes ?? 0) / 1_048_576)
    }
}
