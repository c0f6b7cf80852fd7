import ArgumentParser
import Database
import DatabasePostgres
import Drills
import Foundation
import HTTPClient
import IAPCommands
import Logging
import Repositories
import SettlementWriter
import StubStore

extension Lab.Bench.StagesBench {
    /// Posts the load to running stages, waits for every webhook, and reads what each
    /// process spent, what PostgreSQL ran, and what the books say.
    func measure(
        _ stages: StageProcesses, _ pipeline: StagesPipeline, minter: StubAppStore, apps: BenchApps?,
        client: CurlHTTPClient,
        webhooks: WebhookCounter, settings: PipelineSettings, proxy: NginxTLSProxy?
    ) async throws -> StagesReport {
        let count = rate.map { max(1, Int($0 * seconds)) } ?? receipts
        let load = ReceiptLoad(
            count: count, minter: minter, bundleID: pipeline.bundleID,
            transactionPrefix: "stages-\(UUID().uuidString.prefix(8).lowercased())", accountPrefix: "player",
            accounts: accounts, pkcs7: pkcs7Receipts || verification != .apple, apps: apps)
        // Let the workers settle after start before their idle memory is read.
        try await Task.sleep(for: .seconds(1))
        var watched = stages.stages.map { Watched($0, cap: stages.cap) } + [Watched.broker()]
        if let database = databaseURL.flatMap({ try? PostgresLocation(url: $0).database }) {
            watched += [.postgres(database), .otherDatabases(database)]
        }
        watched.append(Watched("bench: load, webhooks", pids: [getpid()]))
        if let proxy { watched.append(Watched("nginx (TLS, HTTP/2)", pids: [proxy.pid])) }
        // The counts start with the window; without them the run still measures the rest.
        var counter: Result<StatementCounter, any Error>?
        if let databaseURL {
            counter = await Result { try await StatementCounter(url: databaseURL, logger: settings.logger("bench")) }
        }
        var before = watched.map { $0.read() }
        let machineBefore = MachineTimes()
        let start = ContinuousClock.now

        let outcome = await Result { () async throws -> StagesReport in
            let samples = try await load.post(
                to: pipeline.receiptsURLs, token: pipeline.token,
                pace: rate.map { .open(rate: $0, inFlight: 2_048) } ?? .closed(clients: clients))
            let submitted = samples.map { $0.start + $0.latency }.max() ?? start
            var alone: StagesReport.ValidatorAlone?
            if validatorAlone {
                alone = try await drainWithOneValidator(stages, pipeline, settings: settings, count: count)
                try pipeline.startSettling(stages, replicas: replicas)
                try await stages.waitUntilReady(client: client, timeout: .seconds(120))
                // The stages started during the run count from zero, and had no idle moment.
                for stage in stages.stages where !watched.contains(where: { $0.name == stage.name }) {
                    watched.append(Watched(stage, cap: stages.cap))
                    before.append(nil)
                }
            }
            try await waitForWebhooks(count, webhooks: webhooks, stages: stages)
            let machineAfter = MachineTimes()
            let after = watched.map { $0.read() }
            let verified = await verifyRequests(client, pipeline)
            var statements: StagesReport.Statements?
            if case .success(let counter) = counter { statements = try await counter.read(receipts: count) }
            let tally = webhooks.snapshot

            let arrivals = samples.compactMap { sample in
                tally.firstArrival[sample.receiptID].map { ($0, sample.start) }
            }
            let lastArrival = arrivals.map(\.0).max() ?? start
            let processes = watched.indices.compactMap { index in
                after[index].map { figures(watched[index], from: before[index], to: $0, count: count) }
            }
            let pipelineCPU = processes.filter {
                $0.name != "stub-store" && $0.name != Watched.othersName && !$0.name.hasPrefix("bench")
                    && !$0.name.hasPrefix("nginx")
            }
            .map(\.cpuSeconds).reduce(0, +)
            var missing: String?
            if case .failure(let error) = counter { missing = "\(error)" }
            return StagesReport(
                run: runFigures(count: count, cap: stages.cap, load: load),
                submit: StagesReport.flow(samples.map(\.latency), count: count, over: submitted - start),
                endToEnd: StagesReport.flow(
                    arrivals.map { $0.0 - $0.1 }, count: arrivals.count, over: lastArrival - start),
                processes: processes,
                pipelineCPUMsPerReceipt: pipelineCPU * 1000 / Double(count),
                machineCPUMsPerReceipt: machineAfter.busySeconds(since: machineBefore) * 1000 / Double(count),
                machineBusy: machineAfter.busyShare(since: machineBefore),
                books: try await books(pipeline, count: count, apps: apps, notified: arrivals.count, tally: tally),
                validatorAlone: alone, endpoint: proxy.map { StagesReport.Endpoint($0.requests()) },
                verifyRequests: verified, statements: statements, statementsMissing: missing)
        }
        if case .success(let counter) = counter { await counter.close() }
        return try outcome.get()
    }

    /// Returns once every receipt's webhook arrived; throws when a stage exits meanwhile.
    private func waitForWebhooks(_ count: Int, webhooks: WebhookCounter, stages: StageProcesses) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while webhooks.receiptsNotified < count, ContinuousClock.now < deadline {
            if let gone = stages.exited.first {
                throw ValidationError("\(gone.name) exited during the run; see \(gone.log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// What the stub store was asked to verify so far; nil when it does not say.
    private func verifyRequests(_ client: CurlHTTPClient, _ pipeline: StagesPipeline) async -> Int? {
        let response = try? await client.execute(
            HTTPClient.HTTPRequest(method: .get, url: "http://127.0.0.1:\(pipeline.stubPort)/stub/stats"))
        guard let response, response.status == 200,
            let stats = try? JSONDecoder().decode(StubStoreStats.self, from: Data(response.body))
        else { return nil }
        return stats.production.requests + stats.sandbox.requests
    }

    /// One process's (or group's) line of the report, over the window.
    private func figures(
        _ process: Watched, from before: Watched.Reading?, to after: Watched.Reading, count: Int
    ) -> StagesReport.ProcessFigures {
        let spent = after.spent(since: before)
        return StagesReport.ProcessFigures(
            name: process.name, cpuSeconds: spent.cpuSeconds, cpuMsPerReceipt: spent.cpuSeconds * 1000 / Double(count),
            contextSwitchesPerReceipt: Double(spent.contextSwitches) / Double(count),
            diskKBPerReceipt: Double(spent.diskWrittenBytes) / 1024 / Double(count),
            idleRSSMB: before.map { Double($0.usage.residentBytes) / 1_048_576 },
            peakRSSMB: Double(after.usage.peakResidentBytes) / 1_048_576,
            throttled: after.throttling?.share(since: before?.throttling))
    }

    private func runFigures(count: Int, cap: CPUCap?, load: ReceiptLoad) -> StagesReport.Run {
        StagesReport.Run(
            mode: rate == nil ? "count" : "rate", receipts: count,
            requestBytes: load.bodies.reduce(0) { $0 + $1.count } / max(1, load.bodies.count),
            clients: rate == nil ? clients : nil, rate: rate,
            validators: validators, concurrency: concurrency, verification: verification.rawValue,
            stubLatencyMs: stubLatencyMs, stubErrorRate: stubErrorRate,
            cores: ProcessInfo.processInfo.activeProcessorCount, replicas: replicas, apps: apps > 0 ? apps : nil,
            database: databaseURL == nil ? "sqlite" : "postgresql", cpuLimit: cap?.cores, cgroup: cap?.version.rawValue,
            up: up ? true : nil, history: history > 0 ? history : nil)
    }

    /// Every receipt credited, the audit clean (so none twice), each account (of each app)
    /// holding 100 coins per receipt it sent, one webhook per receipt.
    private func books(
        _ pipeline: StagesPipeline, count: Int, apps: BenchApps?, notified: Int, tally: WebhookCounter.Tally
    ) async throws -> StagesReport.Books {
        let database = try await pipeline.stageSettings().openDatabase()
        // The history's receipts (--history) were credited before: the load's are the rest.
        let credited = try await ReceiptRepository(database).receiptStatusCounts()[.credited, default: 0] - history
        let findings = try await LedgerRepository(database).audit()
        let ledger = LedgerRepository(database)
        // Stored account id → receipts it sent, as ReceiptLoad spread them.
        var sent: [String: Int] = [:]
        for index in 0..<count {
            let account = "player-\(index % accounts)"
            sent[apps?.app(of: index).scope.stored(account) ?? account, default: 0] += 1
        }
        for index in 0..<history { sent["player-\(index % accounts)", default: 0] += 1 }
        var wrongBalances = 0
        for (account, receipts) in sent {
            let coins = try await ledger.account(id: account, ledgerLimit: 0)?.balances["coins"] ?? 0
            if coins != receipts * 100 { wrongBalances += 1 }
        }
        return StagesReport.Books(
            credited: credited, notCredited: count - credited, auditFindings: findings.count,
            wrongBalances: wrongBalances, webhooksMissing: count - notified, webhooksDuplicated: tally.duplicates,
            malformedWebhooks: tally.malformed)
    }
}
