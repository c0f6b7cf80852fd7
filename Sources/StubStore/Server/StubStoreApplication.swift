import Hummingbird

/// A Hummingbird application serving `store` (see ``StubAppStore/makeRouter()``).
///
/// Run it as a `Service` in a `ServiceGroup`, or with `run()`. Pass port `0` to bind any free
/// port and learn it from `onServerRunning`:
///
/// ```swift
/// let store = StubAppStore()
/// let app = makeStubStoreApplication(store: store, port: 0) { port in
///     print("verify at http://127.0.0.1:\(port)/verifyReceipt")
/// }
/// try await app.run()
/// ```
/// - Parameters:
///   - store: What to serve.
///   - host: The address to bind.
///   - port: The port to bind; `0` for any free one.
///   - onServerRunning: Called once listening, with the bound port.
/// - Returns: The application, not yet running.
public func makeStubStoreApplication(
    store: StubAppStore,
    host: String = "127.0.0.1",
    port: Int = 8090,
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    Application(
        router: store.makeRouter(),
        configuration: .init(address: .hostname(host, port: port), serverName: "iap-stub-store"),
        onServerRunning: { channel in
            await onServerRunning(channel.localAddress?.port ?? port)
        }
    )
}

/// A Hummingbird application serving a fresh ``StubAppStore`` made from `configuration`.
/// - Parameters:
///   - configuration: The store's signing key, shared secret and chaos.
///   - host: The address to bind.
///   - port: The port to bind; `0` for any free one.
///   - onServerRunning: Called once listening, with the bound port.
/// - Returns: The application, not yet running.
public func makeStubStoreApplication(
    configuration: StubStoreConfiguration,
    host: String = "127.0.0.1",
    port: Int = 8090,
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    makeStubStoreApplication(
        store: StubAppStore(configuration: configuration), host: host, port: port, onServerRunning: onServerRunning)
}
