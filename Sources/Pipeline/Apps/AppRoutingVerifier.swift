import PipelineCore
import StorePlugins

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
    /// The stores known here, which read the identity evidence names
    /// (``StoreRegistry/identity(namedBy:)``).
    let stores: StoreRegistry

    func verify(_ submission: Submission) async -> VerificationOutcome {
        let evidence = submission.evidence.storeEvidence
        let app: String
        if !submission.accountID.isEmpty {
            app = AppScope.appID(of: submission.accountID) ?? defaultApp.id
        } else if let proven = submission.app {
            app = proven.isEmpty ? defaultApp.id : proven
        } else {
            // A message of a release before apps were proven, still queued across the upgrade:
            // the app its notice names (read unverified: that app's verifier checks it), the
            // default app's when it names none of the apps', as that release routed it.
            app = stores.identity(namedBy: evidence).flatMap { apps.identities[$0] } ?? defaultApp.id
        }
        guard let verifier = app == defaultApp.id ? defaultApp.verifier : others[app] else {
            // An app this validator's file does not list (a file rolled out to the intake
            // first): tried again, and dead-lettered for an operator if it stays unknown.
            return .transient(reason: "app_not_configured: \(app)")
        }
        // A purchase that names another app's identity on its face is refused without a call
        // to its store, naming that app (a notice's app was proven by its credential, and its
        // verifier checks what it names).
        if evidence.kind != StoreEvidence.notificationKind,
            let refusal = apps.otherApps(than: app).rejection(for: stores.identity(namedBy: evidence))
        {
            return .rejected(reason: refusal)
        }
        return await verifier.verify(submission)
    }
}
