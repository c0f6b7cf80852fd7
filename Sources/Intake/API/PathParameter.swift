import Foundation
import Hummingbird

extension RequestContext {
    /// The path parameter `name` as the client meant it: Hummingbird hands it over as sent,
    /// percent-encoded, so `a%3Ab` (how many clients send `a:b`) is decoded here. One that
    /// does not decode to UTF-8 is kept as sent, and refused by the parameter's rules.
    func pathParameter(_ name: String) -> String {
        let raw = parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }
}
