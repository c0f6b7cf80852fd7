import AppStore
import GooglePlay
import PipelineCore

/// Verifies each submission with the stores of its app (issue 30): the app of its account
/// id (``AppScope/appID(of:)``), the default app's for a bare id; a store's notification with
/// the stores of the app whose credential proved it at the intake (``Submission/app``).
struct AppRoutingVerifier: ReceiptVerifier {
    /// The default app's id and verifier.
    let defaultApp: (id: String, verifier: any ReceiptVerifier)
    /// The other apps' verifiers, by app id.
    let others: [String: any ReceiptVerifier]
    /// Every app's store identities, to refuse another app's evidence before asking a store.
    let apps: AppsParts

    func verify(_ submission: Submission) async -> VerificationOutcome {
        let app: String
        if !submission.accountID.isEmpty {
            app = AppScope.appID(of: submission.accountID) ?? defaultApp.id
        } else if let proven = submission.app {
            app = proven.isEmpty ? defaultApp.id : proven
        } else {
            // A message of a release before apps were proven, still queued across the upgrade.
            app = notifiedApp(submission.evidence.storeEvidence)
        }
        guard let verifier = app == defaultApp.id ? defaultApp.verifier : others[app] else {
            // An app this validator's file does not list (a file rolled out to the intake
            // first): tried again, and dead-lettered for an operator if it stays unknown.
            return .transient(reason: "app_not_configured: \(app)")
        }
        let evidence = submission.evidence.storeEvidence
        if let refusal = refusal(evidence, app: app) { return .rejected(reason: refusal) }
        let outcome = await verifier.verify(submission)
        // A StoreKit 2 transaction of the wrong app is refused once its signature held:
        // named by its app when it is another app's of the pipeline.
        if case .rejected(let reason) = outcome, reason.hasPrefix("jws_wrong_app"),
            case .signedTransaction(let jws)? = evidence.builtInApple,
            let mismatch = apps.otherApps(than: app).rejection(for: TransactionPeek(jws)?.bundleID)
        {
            return .rejected(reason: mismatch)
        }
        return outcome
    }

    /// The app a notification of an earlier release's message is about, by the bundle id or
    /// package name it names (read unverified: its app's verifier checks it); the default
    /// app's when it names none of the apps', as that release routed it. Messages of this
    /// release carry the app their credential proved.
    private func notifiedApp(_ evidence: StoreEvidence) -> String {
        let identity: String? =
            switch evidence.builtInApple {
            case .notification(let payload)?: NotificationPeek(payload)?.bundleID
            default:
                evidence.store == GooglePlayStore.id ? GoogleNotice(canonicalJSON: evidence.payload)?.packageName : nil
            }
        return identity.flatMap { apps.identities[$0] } ?? defaultApp.id
    }

    /// A Google purchase names its package in the evidence itself: another app's is
    /// refused without a call to Google. (Apple's bundle id is known only once verified:
    /// Apple's verifier refuses it, ``AppleSetup/otherApps``.)
    private func refusal(_ evidence: StoreEvidence, app: String) -> String? {
        guard evidence.store == GooglePlayStore.id, evidence.kind != StoreEvidence.notificationKind,
            let purchase = GooglePlayPurchase(canonicalJSON: evidence.payload)
        else { return nil }
        return apps.otherApps(than: app).rejection(for: purchase.packageName)
    }
}
