import Foundation
import PipelineCore
import Yams

/// The apps one pipeline serves (`IAP_APPS`: YAML, or JSON, which YAML reads too): each its
/// id, its stores' identities and credentials, its catalog, API tokens and webhook.
///
/// ```yaml
/// apps:
///   - id: puzzle
///     catalog: /etc/iap/puzzle-catalog.json
///     api_tokens: [puzzle-backend-token-0001]
///     webhook: { url: "https://puzzle.example/iap", secret: "..." }
///     apple: { bundle_id: com.studio.puzzle, app_apple_id: 1234567890 }
///     google_play: { package_names: [com.studio.puzzle], service_account: /run/secrets/play.json }
/// ```
///
/// Every error names the app and the member at fault, never a secret's value.
public struct AppsFile: Sendable {
    /// One app: its id, and its settings as the single-app variables they stand for.
    public struct App: Sendable {
        public var id: String
        /// Dotted member path to its value (lists joined by commas).
        public var members: [String: String]
        /// The stores and parts it names (`apple`, `apple.server_api`, `webhook`, ...).
        public var parts: Set<String>
        /// What its members stand for.
        public var schema: Schema

        /// The app's settings: `base` (the process's environment) without any per-app
        /// variable, and this app's members in their place.
        public func environment(over base: EnvironmentReader) -> EnvironmentReader {
            let shared = base.values.filter { !schema.perAppVariables.contains($0.key) }
            return environment(overlaying: EnvironmentReader(shared))
        }

        /// The default app's settings: `base` with this app's members in place of the
        /// variables they stand for, the single-app variables serving it where it is silent.
        public func environment(overlaying base: EnvironmentReader) -> EnvironmentReader {
            var values = base.values
            for (path, value) in members {
                if let member = schema.members[path] { values[member.variable] = value }
            }
            return EnvironmentReader(values)
        }

        /// The values of a list member (`api_tokens`, ...); none when it is not given.
        public func list(_ path: String) -> [String] {
            members[path].map { $0.split(separator: ",").map(String.init) } ?? []
        }
    }

    public var apps: [App]
    /// The members its apps may have: the common ones and the registered stores'.
    public var schema: Schema

    /// Reads and checks the file at `path`, whose apps may have `schema`'s members.
    public static func load(path: String, schema: Schema) throws(SettingError) -> AppsFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingError(variable: "IAP_APPS", problem: "cannot read \(path)")
        }
        return try parse(String(decoding: data, as: UTF8.self), schema: schema)
    }

    /// Checks `text`: its shape, each app's members (`schema`'s), and what must be unique
    /// across apps.
    public static func parse(_ text: String, schema: Schema) throws(SettingError) -> AppsFile {
        let root: Any?
        do {
            root = try Yams.load(yaml: text)
        } catch let error as YamlError {
            throw failure(Self.describe(error))
        } catch {
            throw failure("is not YAML or JSON")
        }
        guard let top = root as? [String: Any], let list = top["apps"] as? [Any] else {
            throw failure("must hold `apps:`, a list of apps")
        }
        if let extra = top.keys.sorted().first(where: { $0 != "apps" }) { throw failure("unknown member \(extra)") }
        guard !list.isEmpty else { throw failure("`apps:` lists no app") }
        var apps: [App] = []
        for (index, entry) in list.enumerated() { apps.append(try app(entry, at: index, schema: schema)) }
        try checkUnique(apps, schema: schema)
        return AppsFile(apps: apps, schema: schema)
    }

    private static func app(_ entry: Any, at index: Int, schema: Schema) throws(SettingError) -> App {
        guard let object = entry as? [String: Any] else { throw failure("app \(index + 1) is not a mapping") }
        guard let id = object["id"] as? String,
            id.range(of: #"^[a-z0-9][a-z0-9_-]{0,31}$"#, options: .regularExpression) != nil
        else {
            throw failure("app \(index + 1): id must be 1-32 of a-z, 0-9, - and _, starting with a letter or digit")
        }
        var app = App(id: id, members: [:], parts: [], schema: schema)
        try flatten(object.filter { $0.key != "id" }, prefix: "", into: &app)
        for requirement in schema.requirements where app.parts.contains(requirement.part) {
            if let missing = requirement.members.first(where: { app.members[$0] == nil }) {
                throw failure("app \(id): \(missing) is required with \(requirement.part)")
            }
        }
        guard app.members["api_tokens"] != nil else {
            throw failure("app \(id): api_tokens is required (the backend's tokens for this app)")
        }
        return app
    }

    /// Each leaf of `object` as a member of `app`, by dotted path; unknown paths refused.
    private static func flatten(_ object: [String: Any], prefix: String, into app: inout App) throws(SettingError) {
        for key in object.keys.sorted() {
            let path = prefix + key
            let value = object[key]!
            if let nested = value as? [String: Any] {
                guard app.schema.members.keys.contains(where: { $0.hasPrefix(path + ".") }) else {
                    throw failure("app \(app.id): unknown member \(path)")
                }
                app.parts.insert(path)
                try flatten(nested, prefix: path + ".", into: &app)
                continue
            }
            guard let member = app.schema.members[path] else { throw failure("app \(app.id): unknown member \(path)") }
            app.members[path] = try scalar(value, member: member, path: path, app: app.id)
        }
    }

    private static func scalar(_ value: Any, member: Member, path: String, app: String) throws(SettingError) -> String {
        func text(_ item: Any) -> String? {
            switch item {
            case let string as String: string.trimmingCharacters(in: .whitespaces)
            case let number as Int: String(number)
            default: nil
            }
        }
        let items: [Any] = member.isList ? (value as? [Any] ?? [value]) : [value]
        let texts = items.map(text)
        guard !texts.isEmpty, texts.allSatisfy({ $0 != nil && !$0!.isEmpty && !$0!.contains(",") }) else {
            throw failure(
                "app \(app): \(path) must be \(member.isList ? "a list of texts" : "a text"), without commas")
        }
        return texts.map { $0! }.joined(separator: ",")
    }

    /// Ids, and each unique member's values, name one app only: refused naming both apps,
    /// never a secret's value.
    private static func checkUnique(_ apps: [App], schema: Schema) throws(SettingError) {
        var seen: [String: String] = [:]
        for app in apps {
            guard seen.updateValue(app.id, forKey: "id\n\(app.id)") == nil else {
                throw failure("app \(app.id) is listed twice")
            }
        }
        for (path, member) in schema.members.sorted(by: { $0.key < $1.key }) where member.isUnique {
            for app in apps {
                for value in (app.members[path] ?? "").split(separator: ",") {
                    if let other = seen.updateValue(app.id, forKey: "\(path)\n\(value)"), other != app.id {
                        // A secret never; nor a value as long as a public key, which would fill the line.
                        let shown = member.isSecret || value.count > 160 ? "a value" : "\(value)"
                        throw failure("apps \(other) and \(app.id) share \(path) \(shown): each must be one app's")
                    }
                }
            }
        }
    }

    /// A YAML error by its place and problem: never the line itself, which may hold a secret.
    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            "is not YAML or JSON: line \(mark.line), column \(mark.column): \(problem)"
        case .duplicatedKeysInMapping(let duplicates, _):
            "has a member given twice: \(duplicates.sorted().joined(separator: ", "))"
        default:
            "is not YAML or JSON"
        }
    }

    public static func failure(_ problem: String) -> SettingError {
        SettingError(variable: "IAP_APPS", problem: problem)
    }
}
