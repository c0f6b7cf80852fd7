import PipelineCore

extension GooglePlayStore {
    /// Where the Developer API is asked, and whether pushes are taken.
    public var summary: String {
        guard let setup else { return "off (set IAP_GOOGLE_SERVICE_ACCOUNT)" }
        return setup.apiURL + "  pushes: " + (push == nil ? "off (set IAP_GOOGLE_PUSH_AUDIENCE)" : "on")
    }

    public static let variablePrefixes = ["IAP_GOOGLE_"]

    /// `google_play:` in an app of the apps file.
    public static let appsFileSection = AppsFileSection(
        "google_play",
        members: [
            "package_names": .init(variable: "IAP_GOOGLE_PACKAGE_NAMES", isList: true, isIdentity: true),
            // The key file's path: one app's own Play access, revoked or rotated alone.
            "service_account": .init(variable: "IAP_GOOGLE_SERVICE_ACCOUNT", isUnique: true),
            // The audience is what tells one app's push subscription from another's.
            "push_audience": .init(variable: "IAP_GOOGLE_PUSH_AUDIENCE", isUnique: true),
            // Names who signs the pushes, not the app: one service account may push every app's
            // subscription, each under its own audience.
            "push_service_account": .init(variable: "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT"),
        ],
        required: ["": ["package_names", "service_account"]])
}
