import Foundation
import NIOSSL
import PipelineCore
import PostgresNIO
import Store

/// Where a PostgreSQL database is, from `IAP_DATABASE_URL`:
/// `postgres://user:password@host:5432/database?sslmode=disable|prefer|require`.
///
/// The password is kept for connecting only: ``description`` and every error show the URL
/// with `***` in its place.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    public var sslMode: SSLMode
    private var password: String?

    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        case disable, prefer, require
    }

    /// - Throws: ``SettingError`` naming `variable` and what is wrong, never the password.
    public init(url: String, variable: String = "IAP_DATABASE_URL") throws(SettingError) {
        func refuse(_ problem: String) -> SettingError {
            SettingError(variable: variable, problem: problem)
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw refuse("is not a URL; expected postgres://user:password@host:5432/database")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw refuse("must start with postgres:// (got \(scheme)://)")
        }
        guard let host = components.host, !host.isEmpty else { throw refuse("names no host") }
        guard let user = components.user, !user.isEmpty else { throw refuse("names no user") }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw refuse("port must be 1...65535") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw refuse("names no database (…:5432/NAME)") }
        let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer"
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw refuse(
                "sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", ")), got '\(mode)'")
        }
        self.host = host
        self.port = port
        self.user = user
        self.password = components.password
        self.database = database
        self.sslMode = sslMode
    }

    /// The URL without its password.
    public var description: String {
        "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
    }

    /// The same server and credentials, another database (the tests make one each).
    public func database(_ name: String) -> PostgresLocation {
        var other = self
        other.database = name
        return other
    }

    /// The pool's settings: at most `connections` at once, each dropped after a minute idle.
    func clientConfiguration(connections: Int) throws -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = max(1, connections)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// One connection's settings, for checking the server answers before the pool starts.
    func connectionConfiguration(timeout: Duration) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .milliseconds(Int64(timeout.milliseconds))
        return configuration
    }
}
