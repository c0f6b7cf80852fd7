import Database
import Foundation
import NIOSSL
import PipelineCore
import PostgresNIO
import SettlementWriter

/// Where a PostgreSQL database is, from `IAP_DATABASE_URL`:
/// `postgres://user:password@host:5432/database?sslmode=disable|prefer|require`, or with
/// several servers as libpq takes them, `…@host1:5432,host2:5432/database?target_session_attrs=read-write`.
///
/// The password is kept for connecting only: ``description`` and every error show the URL
/// with `***` in its place.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The servers, in the URL's order: a primary and its standbys, any of which may be
    /// promoted.
    public var servers: [Server]
    public var user: String
    public var database: String
    public var sslMode: SSLMode
    /// Which server a process writes to (`target_session_attrs`).
    public var target: Target
    private var password: String?

    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        case disable, prefer, require
    }

    /// libpq's `target_session_attrs`, the two values that matter to a pipeline that writes.
    public enum Target: String, Sendable, Hashable, CaseIterable {
        /// The server that accepts writes (not a standby, not read-only): the default with
        /// several servers.
        case readWrite = "read-write"
        /// The first that answers: the default with one server, which is then never checked.
        case any
    }

    /// One server of the list.
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int = 5432) {
            self.host = host
            self.port = port
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The first server's host and port (with one server, the server).
    public var host: String { servers[0].host }
    public var port: Int { servers[0].port }

    /// Whether the server to write to must be looked for: several servers, or one that must
    /// be checked for writes. One server with `any` is used as it is, as before failover.
    var searchesForPrimary: Bool { servers.count > 1 || target == .readWrite }

    /// - Throws: ``SettingError`` naming `variable` and what is wrong (a malformed host entry
    ///   by its number and text), never the password.
    public init(url: String, variable: String = "IAP_DATABASE_URL") throws(SettingError) {
        func refuse(_ problem: String) -> SettingError {
            SettingError(variable: variable, problem: problem)
        }
        let parts = try PostgresURL(url, refuse: refuse)
        let mode = parts.parameters["sslmode"] ?? "prefer"
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw refuse(
                "sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", ")), got '\(mode)'")
        }
        let defaultTarget: Target = parts.servers.count > 1 ? .readWrite : .any
        let attributes = parts.parameters["target_session_attrs"] ?? defaultTarget.rawValue
        guard let target = Target(rawValue: attributes) else {
            throw refuse(
                "target_session_attrs must be one of \(Target.allCases.map(\.rawValue).joined(separator: ", ")), "
                    + "got '\(attributes)'")
        }
        servers = parts.servers
        user = parts.user
        password = parts.password
        database = parts.database
        self.sslMode = sslMode
        self.target = target
    }

    /// The URL without its password; `target_session_attrs` shown unless one server is used as
    /// it is.
    public var description: String {
        let shown = servers.map(\.description).joined(separator: ",")
        let target = searchesForPrimary ? "&target_session_attrs=\(target.rawValue)" : ""
        return
            "postgres://\(user)\(password == nil ? "" : ":***")@\(shown)/\(database)?sslmode=\(sslMode.rawValue)\(target)"
    }

    /// The same servers and credentials, another database (the tests make one each).
    public func database(_ name: String) -> PostgresLocation {
        var other = self
        other.database = name
        return other
    }

    /// The pool's settings for `server`: at most `connections` at once, each dropped after a
    /// minute idle; `startup` are the server's settings for each session, a connect to a
    /// silent server is given up after `connectTimeout`.
    func clientConfiguration(
        server: Int, connections: Int, startup: [(String, String)] = [], connectTimeout: Duration = .seconds(10)
    ) throws -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: servers[server].host, port: servers[server].port, username: user, password: password,
            database: database, tls: tls)
        configuration.options.maximumConnections = max(1, connections)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.additionalStartupParameters = startup
        return configuration
    }

    /// One connection's settings, outside the pool (checks, migrations, leadership).
    func connectionConfiguration(server: Int, timeout: Duration, startup: [(String, String)] = []) throws
        -> PostgresConnection.Configuration
    {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        var configuration = PostgresConnection.Configuration(
            host: servers[server].host, port: servers[server].port, username: user, password: password,
            database: database, tls: tls)
        configuration.options.connectTimeout = .milliseconds(Int64(timeout.milliseconds))
        configuration.options.additionalStartupParameters = startup
        return configuration
    }
}
