import PipelineCore

/// The members an app of the apps file may have, each the per-app twin of a single-app
/// setting: an app is read by the very parsers that read the environment, over the
/// variables its members stand for, so one rule checks a setting wherever it is written.
extension AppsFile {
    public typealias Member = AppsFileSection.Member

    /// The members of every app, whatever its stores: its catalog, its backend's tokens and
    /// its webhook.
    public static let common = AppsFileSection(
        "",
        members: [
            "catalog": Member(variable: "IAP_CATALOG"),
            "api_tokens": Member(variable: "IAP_API_TOKENS", isList: true, isSecret: true, isUnique: true),
            "webhook.url": Member(variable: "IAP_WEBHOOK_URL"),
            "webhook.secret": Member(variable: "IAP_WEBHOOK_SECRET", isSecret: true),
        ],
        required: ["webhook": ["webhook.url", "webhook.secret"]])

    /// Every member an app may have, by its dotted path: ``common`` and each store's section
    /// (its plug-in's `appsFileSection`).
    ///
    /// Unique: what names one app (its tokens, bundle id, package names, client id) and every
    /// store credential. The values are compared as written: two paths to one key file are
    /// not caught.
    public struct Schema: Sendable {
        public struct Requirement: Sendable {
            /// The part of an app (`apple`, `apple.server_api`, `webhook`) that, once named, ...
            public var part: String
            /// ... needs these members.
            public var members: [String]
        }

        public let members: [String: Member]
        public let requirements: [Requirement]
        /// Every variable an app's members stand for: an app's settings hold only its own.
        public let perAppVariables: Set<String>
        /// The members whose values name an app at its store, sorted.
        public let identities: [String]

        /// The common members and `stores`' sections. Two sections of one name, or two members
        /// of one variable, are a programming error (one store's registration repeated).
        public init(stores: [AppsFileSection]) {
            var members: [String: Member] = [:]
            var requirements: [Requirement] = []
            for section in [AppsFile.common] + stores {
                for (path, member) in section.members {
                    precondition(members.updateValue(member, forKey: section.path(path)) == nil, "\(path) twice")
                }
                for (part, needed) in section.required.sorted(by: { $0.key < $1.key }) {
                    requirements.append(Requirement(part: section.path(part), members: needed.map(section.path)))
                }
            }
            precondition(Set(members.values.map(\.variable)).count == members.count, "a variable stood for twice")
            self.members = members
            self.requirements = requirements
            perAppVariables = Set(members.values.map(\.variable))
            identities = members.filter(\.value.isIdentity).keys.sorted()
        }

        /// The values of the identity members' variables in `environment` (an app's settings).
        public func identities(in environment: EnvironmentReader) -> [String] {
            identities.flatMap { environment.list(members[$0]!.variable) }
        }

        /// The member a per-app variable stands for, to name it in errors.
        public func member(for variable: String) -> String? {
            members.first { $0.value.variable == variable }?.key
        }
    }

    /// `error` of a per-app variable, told by the member that stands for it.
    public func named(_ error: SettingError, app: String) -> SettingError {
        Self.failure("app \(app): \(schema.member(for: error.variable) ?? error.variable) \(error.problem)")
    }
}
