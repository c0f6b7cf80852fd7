import Hummingbird

/// The methods each route of a router answers, read from the router's own table, so that a
/// known path asked with another method gets `405` and an `Allow` header (RFC 9110 15.5.6)
/// instead of the `404` Hummingbird gives every request it cannot route. Pure.
struct AllowedMethods: Sendable {
    private let routes: [(path: [RouterPath.Element], methods: Set<HTTPRequest.Method>)]

    init<Context>(_ table: [Router<Context>.RouteDescription]) {
        var byPath: [String: (path: [RouterPath.Element], methods: Set<HTTPRequest.Method>)] = [:]
        for route in table {
            byPath[route.path.description, default: (route.path.components, [])].methods.insert(route.method)
        }
        routes = byPath.keys.sorted().map { byPath[$0]! }
    }

    /// The methods of the routes `path` matches, sorted; empty for a path no route matches.
    func methods(forPath path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods: Set<HTTPRequest.Method> = []
        for route in routes where route.path.count == segments.count {
            if zip(route.path, segments).allSatisfy({ element, segment in element ~= segment }) {
                methods.formUnion(route.methods)
            }
        }
        return methods.sorted { $0.rawValue < $1.rawValue }
    }
}
