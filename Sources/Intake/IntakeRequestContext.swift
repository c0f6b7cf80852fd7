import Hummingbird
import NIOCore

/// The intake's request context: Hummingbird's basics and the client's address, which the
/// per-address limits (Apple's notifications, console logins) key on.
public struct IntakeRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}

extension RemoteAddressRequestContext {
    /// The client's IP address (no port), or `unknown`.
    public var clientAddress: String {
        remoteAddress?.ipAddress ?? "unknown"
    }
}
