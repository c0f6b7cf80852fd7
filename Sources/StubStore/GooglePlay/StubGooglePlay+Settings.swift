import GooglePlay

extension StubGooglePlay: StubStorePart {
    public static let storeID = GooglePlayStore.id

    /// Its API, its service account (a file, so none without a directory) and its
    /// certificates; with an intake, pushes addressed to it.
    public func settings(_ base: StubStoreBase) throws -> [String: String] {
        guard base.directory != nil else { return [:] }
        var settings = [
            "IAP_GOOGLE_PLAY_API_URL": base.url + "/google",
            "IAP_GOOGLE_SERVICE_ACCOUNT": try base.write(
                "stub-google-service-account.json", Array(serviceAccountJSON(baseURL: base.url))),
            "IAP_GOOGLE_CERTS_URL": base.url + Self.certsPath,
        ]
        if let intake = base.intakeURL {
            settings["IAP_GOOGLE_PUSH_AUDIENCE"] = intake + "/v1/google/notifications"
            settings["IAP_GOOGLE_PUSH_SERVICE_ACCOUNT"] = Self.pushServiceAccount
        }
        return settings
    }
}
