import HTTPTypes
import Hummingbird

/// One route of the console: its method, its path under `/console`, what an operator needs
/// to use it, and what it does. The console registers its routes from its table
/// (``OperatorConsole/routes``) and nowhere else, and an entry cannot be made without its
/// need, so no route exists without a declared role.
///
/// ```swift
/// .change("dead/:id/discard", needs: .role(.adjust)) { console, session, call in
///     try await console.discard(session, id: call.id, reason: call.form.text("reason"))
/// }
/// ```
struct ConsoleRoute: Sendable, CustomStringConvertible {
    /// What a logged-in operator needs.
    enum Need: Hashable, Sendable, CustomStringConvertible {
        /// Any operator with a session.
        case login
        /// An operator with this role.
        case role(ConsoleConfiguration.Role)

        var description: String {
            switch self {
            case .login: "login"
            case .role(let role): role.rawValue
            }
        }
    }

    /// Who may use a route: what the table and `docs/console.md` say.
    enum Access: Hashable, Sendable, CustomStringConvertible {
        /// Anyone, with or without a session: the login page and its post.
        case open
        /// A session, and what its operator needs.
        case operatorNeeds(Need)

        var description: String {
            switch self {
            case .open: "open"
            case .operatorNeeds(let need): need.description
            }
        }
    }

    /// Answers anyone; gets the request and the client's address.
    typealias OpenHandler = @Sendable (OperatorConsole, Request, _ address: String) async throws -> ConsolePage
    /// Answers an operator admitted by the route's need.
    typealias Handler = @Sendable (OperatorConsole, ConsoleSession, ConsoleCall) async throws -> ConsolePage

    /// How a route is served once its need is met.
    enum Action: Sendable {
        /// Before any session: the login page and its post.
        case open(OpenHandler)
        /// A page (GET): reads only.
        case page(Handler)
        /// A form post: the session's CSRF token is checked first; may change things.
        case change(Handler)
    }

    let method: HTTPRequest.Method
    /// Under `/console`, Hummingbird's syntax (`dead/:id/replay`); empty for `/console` itself.
    let path: String
    let access: Access
    let action: Action

    /// The route's full path, as the router lists it (`/console/dead/{id}`).
    var routerPath: RouterPath { RouterPath("console").appendingPath(RouterPath(path)) }

    /// `POST /console/dead/:id/discard`.
    var description: String { "\(method) /console" + (path.isEmpty ? "" : "/" + path) }

    /// A route for anyone, logged in or not.
    static func open(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping OpenHandler) -> Self {
        ConsoleRoute(method: method, path: path, access: .open, action: .open(handler))
    }

    /// A page (GET) for an operator with `need`.
    static func page(_ path: String, needs need: Need, _ handler: @escaping Handler) -> Self {
        ConsoleRoute(method: .get, path: path, access: .operatorNeeds(need), action: .page(handler))
    }

    /// A form post for an operator with `need`, carrying the session's CSRF token.
    static func change(_ path: String, needs need: Need, _ handler: @escaping Handler) -> Self {
        ConsoleRoute(method: .post, path: path, access: .operatorNeeds(need), action: .change(handler))
    }

    /// Whether the operator so named may use this route (given a session).
    func admits(_ operatorName: String, _ configuration: ConsoleConfiguration) -> Bool {
        switch access {
        case .open, .operatorNeeds(.login): true
        case .operatorNeeds(.role(let role)): configuration.may(role, operatorName)
        }
    }
}

/// What a route's handler gets of its request: the path's `:id` (percent-decoded), the
/// query, and a post's form (empty for a page).
struct ConsoleCall: Sendable {
    var id: String
    var query: FormValues
    var form: FormValues
}
