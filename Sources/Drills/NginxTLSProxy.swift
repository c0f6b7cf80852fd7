import Foundation

/// Debian's nginx on loopback, speaking TLS with HTTP/2 offered in the handshake (ALPN
/// `h2`), as Apple's endpoints do, with a fresh self-signed certificate for 127.0.0.1.
///
/// The stub store speaks HTTP/1.1 on plain TCP only; put this in front of it to verify
/// over HTTP/2 (`iap-lab bench --http2`, and the tests of the validator's HTTP client). nginx
/// holds kept-alive HTTP/1.1 connections to the upstream, and its access log records each
/// request's protocol and connection, so that a test can tell how requests travelled.
public final class NginxTLSProxy: @unchecked Sendable {
    public static let executable = "/usr/sbin/nginx"
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: executable) && SelfSignedCertificate.isAvailable
    }

    /// One request as nginx logged it.
    public struct ServedRequest: Sendable, Equatable {
        /// `HTTP/2.0` or `HTTP/1.1`.
        public let httpProtocol: String
        /// nginx's serial number of the connection that carried it.
        public let connection: Int
    }

    public let port: Int
    /// The certificate in PEM: the CA file a client trusts to reach this proxy.
    public let certificateFile: String
    private let directory: String
    private let process: SpawnedProcess

    /// `https://127.0.0.1:<port>`.
    public var url: String { "https://127.0.0.1:\(port)" }
    /// nginx's process, for reading what it spent.
    public var pid: Int32 { process.processIdentifier }

    /// Starts nginx and returns once it accepts connections.
    /// - Parameters:
    ///   - upstreamPort: the plain-HTTP server on 127.0.0.1 to pass every request to.
    ///   - http2: false offers HTTP/1.1 only, as some webhook receivers do. With HTTP/2 a
    ///     connection carries 128 requests at once (nginx's default).
    public init(upstreamPort: Int, http2: Bool = true) throws {
        guard Self.isAvailable else {
            throw ProxyError("needs nginx and openssl from Debian (apt-get install nginx openssl)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (certificate, key) = try SelfSignedCertificate.write(into: directory)
        certificateFile = certificate

        var lastError = ""
        for _ in 0..<5 {
            let port = LoopbackPort.free()
            try Self.configuration(
                directory: directory, port: port, key: key, certificate: certificateFile, upstreamPort: upstreamPort,
                http2: http2
            ).write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            let process = try SpawnedProcess.start(
                Self.executable, ["-p", directory, "-c", directory + "/nginx.conf", "-e", directory + "/error.log"])
            if Self.waitUntilListening(port: port, process: process) {
                self.port = port
                self.process = process
                return
            }
            process.signal(SIGKILL)
            process.waitUntilExit()
            lastError = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw ProxyError("nginx did not start: \(lastError.suffix(500))")
    }

    deinit { stop() }

    /// Stops nginx and removes its directory (certificate, configuration, logs).
    ///
    /// SIGKILL: it keeps nothing worth a graceful end, and a child of a process that blocks
    /// SIGTERM (as test runners and the pipeline's services do) inherits the block.
    public func stop() {
        if process.isRunning {
            process.signal(SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The requests served once `count` are logged, or after 5 s: nginx writes a request's
    /// line after its answer has left, so a client can hold every answer before the last
    /// line is written.
    public func requests(awaiting count: Int) async -> [ServedRequest] {
        let deadline = ContinuousClock.now + .seconds(5)
        var served = requests()
        while served.count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            served = requests()
        }
        return served
    }

    /// Every request served so far, in the order nginx logged them.
    public func requests() -> [ServedRequest] {
        let log = (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 2, let connection = Int(fields[1]) else { return nil }
            return ServedRequest(httpProtocol: String(fields[0]), connection: connection)
        }
    }

    private static func configuration(
        directory: String, port: Int, key: String, certificate: String, upstreamPort: Int, http2: Bool
    ) -> String {
        // One process, in the foreground, every path in `directory`: nothing of the
        // machine's nginx (/etc/nginx, /var/log/nginx) is read or written.
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log warn;
        events { worker_connections 8192; }
        http {
            log_format served '$server_protocol $connection';
            access_log \(directory)/access.log served;
            client_body_temp_path \(directory)/client_body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            keepalive_requests 1000000;
            upstream upstream { server 127.0.0.1:\(upstreamPort); keepalive 256; }
            server {
                listen 127.0.0.1:\(port) ssl\(http2 ? " http2" : "");
                ssl_certificate \(certificate);
                ssl_certificate_key \(key);
                location / {
                    proxy_pass http://upstream;
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_set_header Host $host;
                }
            }
        }

        """
    }

    /// Whether something accepts connections on `port` within 10 s, while `process` runs.
    private static func waitUntilListening(port: Int, process: SpawnedProcess) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, process.isRunning {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(socket)
            if connected { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }
}

public struct ProxyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
