import Drills
import Foundation
import PipelineTesting

/// `openssl s_server` with a fresh self-signed certificate for 127.0.0.1, for TLS tests.
///
/// `-www` makes it answer any GET with `200` and a status page. It serves one connection at a
/// time, which is all these tests need.
final class TLSTestServer {
    static let openssl = SelfSignedCertificate.openssl
    static var isAvailable: Bool { SelfSignedCertificate.isAvailable }

    let port: Int
    /// The server's certificate in PEM, usable as its own CA file.
    let certificateFile: String
    private let directory: URL
    private let process: SpawnedProcess

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (certificate, key) = try SelfSignedCertificate.write(into: directory.path)

        // Port 0 lets the kernel choose; s_server prints "ACCEPT 127.0.0.1:PORT" once listening.
        let output = directory.appendingPathComponent("server.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = try SpawnedProcess.start(
            Self.openssl, ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-www"],
            output: .file(output.path), error: .null)

        var port: Int?
        let deadline = Date().addingTimeInterval(10)
        while port == nil, Date() < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
                let number = line.split(separator: ":").last.flatMap({ Int($0) })
            {
                port = number
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        guard let port else {
            Self.kill(process)
            throw TLSTestServerError.didNotStart
        }
        self.port = port
        self.certificateFile = certificate
        self.directory = directory
        self.process = process
    }

    deinit {
        Self.kill(self.process)
        try? FileManager.default.removeItem(at: self.directory)
    }

    /// SIGKILL: the server keeps nothing worth a graceful end.
    private static func kill(_ process: SpawnedProcess) {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }
}

enum TLSTestServerError: Error {
    case didNotStart
}
