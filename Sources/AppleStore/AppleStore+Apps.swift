import AppStore
import PipelineCore
import StorePlugins

extension AppleStore {
    /// The bundle id a signed transaction or a notification names in its payload; none for
    /// a legacy receipt, whose bundle id only Apple's answer (or the local check) tells.
    public static func identity(namedBy evidence: StoreEvidence) -> String? {
        switch evidence.builtInApple {
        case .signedTransaction(let jws)?: TransactionPeek(jws)?.bundleID
        case .notification(let payload)?: NotificationPeek(payload)?.bundleID
        default: nil
        }
    }

    /// Apple refusing a legacy receipt of one of `otherApps` once its bundle id is read.
    public func refusing(_ otherApps: OtherApps) -> AppleStore {
        var setup = setup
        setup.otherApps = otherApps
        return AppleStore(setup: setup, jobs: jobs)
    }
}
