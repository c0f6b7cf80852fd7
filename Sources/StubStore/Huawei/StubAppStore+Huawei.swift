import Foundation
import Synchronization

extension StubAppStore {
    /// Huawei's IAP servers, served under `/huawei` beside Apple's and Google's.
    ///
    /// Kept beside the store rather than in it: one per store, made on first use, and
    /// dropped with the store (a weak owner, so a new store at a freed address gets its own).
    public var huawei: StubHuawei {
        StubHuaweiRegistry.shared.stub(for: self)
    }
}

/// One ``StubHuawei`` per ``StubAppStore``.
final class StubHuaweiRegistry: Sendable {
    static let shared = StubHuaweiRegistry()

    private final class Entry: @unchecked Sendable {
        // Read and written only under the registry's lock.
        weak var owner: StubAppStore?
        let stub: StubHuawei

        init(owner: StubAppStore, stub: StubHuawei) {
            self.owner = owner
            self.stub = stub
        }
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    func stub(for store: StubAppStore) -> StubHuawei {
        entries.withLock { entries in
            let id = ObjectIdentifier(store)
            if let entry = entries[id], entry.owner === store { return entry.stub }
            entries = entries.filter { $0.value.owner != nil }
            let stub = StubHuawei(now: store.configuration.now)
            entries[id] = Entry(owner: store, stub: stub)
            return stub
        }
    }
}
