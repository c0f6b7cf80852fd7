import Foundation
import Hummingbird

/// One store's stub in the lab's server, beside Apple's (the stub store itself): its routes
/// under its own path, and the variables that point its plug-in at them. A store's stub is
/// its folder here and one line in ``StubAppStore/parts``; the router and the settings the
/// lab writes for the demo and the tests take every part from there.
public protocol StubStorePart: Sendable {
    /// Its store's id (`huawei`), as its plug-in's.
    static var storeID: String { get }

    /// Adds its routes (each under its own path, `/huawei/...`) and admin routes (`/stub/<id>/...`).
    func registerRoutes(on router: Router<BasicRequestContext>)

    /// The variables that point its plug-in at this stub served at `base.url`.
    /// - Throws: when a file the settings name cannot be written.
    func settings(_ base: StubStoreBase) throws -> [String: String]
}

/// Where the lab serves its stubs, and what their settings may need.
public struct StubStoreBase: Sendable {
    /// The stub's base URL (`http://127.0.0.1:8090`).
    public var url: String
    /// The intake's, where a store's pushes are addressed; nil when nothing pushes.
    public var intakeURL: String?
    /// The secrets the stub signs with for a store whose pushes carry a shared secret (Stripe).
    public var webhookSecrets: [String]
    /// Where files the settings name (a service account) are written; nil writes none, and a
    /// store whose plug-in needs one gives no settings (tests set such a store up by hand).
    public var directory: String?

    public init(url: String, intakeURL: String? = nil, webhookSecrets: [String] = [], directory: String? = nil) {
        self.url = url
        self.intakeURL = intakeURL
        self.webhookSecrets = webhookSecrets
        self.directory = directory
    }

    /// `bytes` as the file `name` in ``directory``; its path.
    /// - Throws: without a directory, or when the file cannot be written.
    public func write(_ name: String, _ bytes: some Sequence<UInt8>) throws -> String {
        guard let directory else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name]) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }
}
