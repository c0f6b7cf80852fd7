import NIOCore
import PipelineCore
import PostgresNIO

/// The dead-peer options (``DeadPeer``) on a PostgreSQL connection's socket.
///
/// postgres-nio 1.33 sets no socket option and lets none be set: its bootstrap is made inside
/// `PostgresConnection.connect`, its pool makes its connections itself, and the connection's
/// channel is internal. The channel is therefore found by reflection (`Mirror` lists stored
/// properties whatever their access) and the options set through NIO, once per connection.
/// Should a release rename the property, the options are missing: ``apply(_:to:)`` throws,
/// the caller logs it, and `PostgresSocketTests` fails, while the work's own timeout still
/// bounds a silent server.
enum PostgresSocket {
    struct Unreachable: Error, CustomStringConvertible {
        var description: String { "postgres-nio's connection has no channel to set socket options on" }
    }

    static func channel(of connection: PostgresConnection) -> (any Channel)? {
        Mirror(reflecting: connection).children.first { $0.label == "channel" }?.value as? any Channel
    }

    static func apply(_ deadPeer: DeadPeer, to connection: PostgresConnection) async throws {
        guard let channel = channel(of: connection) else { throw Unreachable() }
        for option in deadPeer.socketOptions {
            try await channel.setOption(Self.option(option.level, option.name), value: SocketOptionValue(option.value))
                .get()
        }
    }

    /// What the socket carries now, in the order of ``DeadPeer/socketOptions``.
    static func read(_ connection: PostgresConnection) async throws -> [Int32] {
        guard let channel = channel(of: connection) else { throw Unreachable() }
        var values: [Int32] = []
        for option in DeadPeer(timeout: .seconds(2)).socketOptions {
            values.append(
                Int32(truncatingIfNeeded: try await channel.getOption(Self.option(option.level, option.name)).get()))
        }
        return values
    }

    private static func option(_ level: Int32, _ name: Int32) -> ChannelOptions.Types.SocketOption {
        ChannelOptions.Types.SocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: level), name: NIOBSDSocket.Option(rawValue: name))
    }
}
