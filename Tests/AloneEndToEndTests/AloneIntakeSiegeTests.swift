import Foundation
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// Issue 25's siege against a real `iap intake`: 20,000 connections from one address, each
/// trickling a body one byte every 10 s. Before, they held the process's every file
/// descriptor and `/healthz` stopped answering. It loads the machine, so it runs alone
/// (`IAP_TEST_ALONE=1`); it asserts answers, never times, and prints what the intake held
/// (the figures in BENCHMARKS.md).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneIntakeSiegeTests {
    static let slots = 20_000

    @Test func twentyThousandSlowBodiesFromOneAddressLeaveTheIntakeToASecondClient() async throws {
        try await ProcessPipeline.run(stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID)) { pipeline in
            // Given an intake with the default limits, started with this machine's file limit
            let intake = try pipeline.start(["intake"])
            let pid = intake.process.processIdentifier
            #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))
            let fileLimit = ProcessFigures.fileLimit(of: pid)
            let calm = ProcessFigures(pid: pid)

            // When one address opens 20,000 slow bodies and keeps them coming
            let siege = try SlowBodySiege(
                port: pipeline.intakePort, connections: Self.slots, seconds: 120, directory: pipeline.directory.path)
            var held = calm
            var answers: [String] = []
            for round in 0..<4 {
                try await Task.sleep(for: .seconds(10))
                held = ProcessFigures(pid: pid).busiest(held)
                // Then a second address is answered: /healthz, and an authenticated receipt
                let second = SecondClient(port: pipeline.intakePort, address: "127.0.0.2")
                let asked = ContinuousClock.now
                let health = await second.request("GET /healthz")
                #expect(health?.status == 200, "round \(round): /healthz from a second address")
                let receipt = pipeline.receipt(transaction: "siege-\(round)")
                let stored = await second.request(
                    "POST /v1/receipts", token: ProcessPipeline.token,
                    json: #"{"account_id": "siege", "receipt_data": "\#(receipt)"}"#)
                #expect(stored?.status == 202, "round \(round): a receipt from a second address")
                let took = (ContinuousClock.now - asked).formatted(.units(allowed: [.milliseconds]))
                answers.append("\(health?.status ?? 0)/\(stored?.status ?? 0) in \(took)")
            }
            let counts = siege.current
            #expect(siege.running, "the siege's processes ended early")
            let metrics = await SecondClient(port: pipeline.intakePort, address: "127.0.0.2").request("GET /metrics")
            let prometheus = try PrometheusText(parsing: metrics?.body ?? "")
            let refused = prometheus.value("iap_http_connections_refused_total", ["reason": "per_address"]) ?? 0
            #expect(refused > 0)
            #expect(held.openFiles < fileLimit / 2, "the intake held \(held.openFiles) of \(fileLimit) descriptors")

            // And once the attacker gives up, the connections and the memory go back
            let stopped = ContinuousClock.now
            await siege.stop()
            #expect(
                await eventually(timeout: .seconds(60)) { ProcessFigures(pid: pid).openFiles < calm.openFiles + 50 })
            let drained = (ContinuousClock.now - stopped).formatted(.units(allowed: [.milliseconds]))
            try await Task.sleep(for: .seconds(5))
            let released = ProcessFigures(pid: pid)
            print(
                """
                intake siege: \(Self.slots) slow bodies from 127.0.0.1, file limit \(fileLimit); \
                the attacker had \(counts.open) open (\(counts.connected) connects, \(counts.closedByServer) closed \
                by the intake, \(counts.failedConnects) failed); refused per address: \(Int(refused)); \
                answers to 127.0.0.2 (healthz/receipt): \(answers.joined(separator: " "))
                intake RSS: \(calm.rssMB) MB calm, \(held.rssMB) MB under siege, \(released.rssMB) MB after release; \
                descriptors \(calm.openFiles) / \(held.openFiles) / \(released.openFiles) (drained in \(drained)); \
                CPU \(String(format: "%.1f", released.cpuSeconds - calm.cpuSeconds)) s over the siege
                """)
        }
    }
}

/// A client from another loopback address: a fresh connection per request.
struct SecondClient {
    let port: Int
    let address: String

    func request(_ line: String, token: String? = nil, json: String? = nil) async -> RawHTTPConnection.Response? {
        guard let connection = try? await RawHTTPConnection.connect(port: port, from: address) else { return nil }
        var text = "\(line) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let token { text += "Authorization: Bearer \(token)\r\n" }
        if let json { text += "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n" }
        try? await connection.send(text + "\r\n" + (json ?? ""))
        let response = await connection.response(timeout: .seconds(30))
        await connection.close()
        return response
    }
}

/// What Linux says of a process: resident memory, open descriptors, CPU time.
struct ProcessFigures {
    var rssMB = 0
    var openFiles = 0
    var cpuSeconds = 0.0

    init(pid: Int32) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        {
            rssMB = kilobytes / 1024
        }
        openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
        if let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) {
                cpuSeconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
            }
        }
    }

    /// The larger of each figure, for a peak over several looks.
    func busiest(_ other: ProcessFigures) -> ProcessFigures {
        var peak = self
        peak.rssMB = max(rssMB, other.rssMB)
        peak.openFiles = max(openFiles, other.openFiles)
        return peak
    }

    /// The soft file limit of `pid`, as `/proc/<pid>/limits` says.
    static func fileLimit(of pid: Int32) -> Int {
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else {
            return 0
        }
        return line.split(separator: " ").dropFirst(3).first.flatMap { Int($0) } ?? 0
    }
}
