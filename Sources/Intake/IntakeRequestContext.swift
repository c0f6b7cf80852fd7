import Hummingbird
import NIOCore
import PipelineCore

/// A request context that carries the app the request acts for, as its token told.
public protocol AppRequestContext: RequestContext {
    var app: AppScope { get set }
}

/// The intake's request context: Hummingbird's basics, the client's address, which the
/// per-client limits key on (the stores' notifications, by ``ClientAddressKey``; console
/// logins), and the app of the backend's token (set by the bearer check).
public struct IntakeRequestContext: AppRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var app = AppScope.single

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}

extension RemoteAddressRequestContext {
    /// The client's IP address (no port), or `unknown`: to show. A limit keys on
    /// ``clientKey``, which counts an IPv6 client by its /64.
    public var clientAddress: String {
        remoteAddress?.ipAddress ?? "unknown"
    }
}
