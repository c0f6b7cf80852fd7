import Hummingbird
import NIOCore
import PipelineCore

extension ClientAddressKey {
    /// The key of a client at `address`, a connection's remote address; nil when unknown.
    public init(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4): self.init(addressBytes: withUnsafeBytes(of: v4.address.sin_addr) { Array($0) })
        case .v6(let v6): self.init(addressBytes: withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) })
        default: self.init(addressBytes: [])
        }
    }
}

extension RemoteAddressRequestContext {
    /// The key the client of this request is limited by (``ClientAddressKey``).
    public var clientKey: ClientAddressKey {
        ClientAddressKey(remoteAddress)
    }
}
