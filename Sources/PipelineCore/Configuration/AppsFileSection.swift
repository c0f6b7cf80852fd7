/// What one store may be given for each app of the apps file (`IAP_APPS`): its members,
/// each the per-app twin of one of the store's single-app variables, so that an app is read
/// by the very parsers that read the environment. A store's plug-in declares its section
/// (`StorePlugin.appsFileSection`); the apps file knows no store by name.
///
/// ```swift
/// AppsFileSection("huawei", members: [
///     "client_id": .init(variable: "IAP_HUAWEI_CLIENT_ID", isUnique: true, isIdentity: true),
///     "client_secret": .init(variable: "IAP_HUAWEI_CLIENT_SECRET", isSecret: true, isUnique: true),
/// ], required: ["": ["client_id", "client_secret"]])
/// ```
public struct AppsFileSection: Sendable {
    /// One member: the variable it stands for and how its values are read and compared.
    public struct Member: Sendable {
        /// The single-app variable it stands for.
        public var variable: String
        /// A list (`[a, b]` in the file, comma-separated in the variable).
        public var isList: Bool
        /// Never printed, not even in an error.
        public var isSecret: Bool
        /// Each value names this app alone: two apps with one are refused. Every credential
        /// is: one two apps share lets one app's notifications, signed or pushed with it, pass
        /// as the other's, and one app's rotation or revocation cuts the other off.
        public var isUnique: Bool
        /// Its values name the app at its store (a bundle id, a package name): evidence that
        /// names one is another app's for every other app of the pipeline.
        public var isIdentity: Bool

        public init(
            variable: String, isList: Bool = false, isSecret: Bool = false, isUnique: Bool = false,
            isIdentity: Bool = false
        ) {
            self.variable = variable
            self.isList = isList
            self.isSecret = isSecret
            self.isUnique = isUnique || isIdentity
            self.isIdentity = isIdentity
        }
    }

    /// The section's name in an app (`huawei`); empty for members at an app's top level.
    public var name: String
    /// Its members, by their dotted path inside the section (`server_api.key_id`).
    public var members: [String: Member]
    /// What an app that names a part of the section must give with it: by the part's path
    /// inside the section (`""`: the section itself), the members' paths. A credential missing
    /// there would leave the store half set up for that app.
    public var required: [String: [String]]

    public init(_ name: String, members: [String: Member], required: [String: [String]] = [:]) {
        self.name = name
        self.members = members
        self.required = required
    }

    /// `path` (inside the section) as the app's dotted path.
    public func path(_ path: String) -> String {
        name.isEmpty ? path : path.isEmpty ? name : "\(name).\(path)"
    }
}
