import ArgumentParser
import Broker
import Foundation
import HTTPClient
import Logging
import Store

extension IAP.Bench.StagesBench {
    /// One validator's own capacity, which the rest of the pipeline on the same cores would
    /// hide: the intake fills the validate queue first, then one `iap validator` starts and
    /// the time until the fulfil queue holds every verdict is its rate (fulfiller stopped).
    func drainWithOneValidator(
        _ stages: StageProcesses, client: CurlHTTPClient, settings: PipelineSettings, prefix: String, count: Int,
        database path: String
    ) async throws -> StagesReport.ValidatorAlone {
        let database = try PipelineDatabase(path: path)
        try await ReceiptLoad.waitUntilPublished(in: database, until: .now + .seconds(timeout))
        let topology = PipelineTopology(prefix: prefix)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let broker = AMQPConnection(configuration: settings.amqp, logger: logger)
        broker.start()
        try await broker.waitUntilConnected()
        defer { Task { await broker.close() } }
        let verdicts = { () async throws -> Int in
            try await broker.withControlChannel { channel throws(BrokerError) in
                try channel.queueStatus(topology.fulfilQueue).messages
            }
        }

        let start = ContinuousClock.now
        try startValidator(stages, index: 1)
        let deadline = start + .seconds(timeout)
        while try await verdicts() < count {
            guard ContinuousClock.now < deadline else { throw ValidationError("the validator did not finish in time") }
            if let gone = stages.exited.first { throw ValidationError("\(gone.name) exited; see \(gone.log)") }
            try await Task.sleep(for: .milliseconds(10))
        }
        let elapsed = ContinuousClock.now - start
        let usage = stages.stages.last.flatMap { ProcessUsage(pid: $0.pid) }
        return StagesReport.ValidatorAlone(
            perSecond: Double(count) / elapsed.seconds, seconds: elapsed.seconds,
            cpuMsPerReceipt: (usage?.cpuSeconds ?? 0) * 1000 / Double(count),
            peakRSSMB: Double(usage?.peakResidentBytes ?? 0) / 1_048_576)
    }

    func startValidator(_ stages: StageProcesses, index: Int) throws {
        let port = StageProcesses.freePort()
        try stages.start(
            "validator-\(index)", ["validator", "--concurrency", "\(concurrency)", "--admin-port", "\(port)"],
            readiness: "http://127.0.0.1:\(port)/readyz")
    }
}
