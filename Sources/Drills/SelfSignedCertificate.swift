import Foundation

/// A fresh self-signed certificate for 127.0.0.1 (P-256), made by Debian's openssl, for
/// servers that tests and benchmarks start over TLS. The certificate is its own CA file.
public enum SelfSignedCertificate {
    public static let openssl = "/usr/bin/openssl"
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    /// Writes `cert.pem` and `key.pem` into `directory`, valid for two days.
    /// - Returns: their paths.
    public static func write(into directory: String) throws -> (certificate: String, key: String) {
        let certificate = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let (termination, output) = try SpawnedProcess.run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        guard termination == .exited(0) else {
            throw CertificateError(description: "openssl req ended \(termination): \(output.suffix(300))")
        }
        return (certificate, key)
    }

    public struct CertificateError: Error, CustomStringConvertible {
        public let description: String
    }
}
