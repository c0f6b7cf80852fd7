extension HTTPRequest {
    /// An HTTP request method.
    ///
    /// A struct over the raw token rather than a closed enum, so that a method this module
    /// does not name can still be sent.
    public struct Method: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The method token as sent on the wire, such as `"GET"`.
        public let rawValue: String

        /// Creates a method from its token.
        /// - Parameter rawValue: The method token, such as `"OPTIONS"`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `GET`
        public static let get = Method(rawValue: "GET")
        /// `HEAD`: the response has no body.
        public static let head = Method(rawValue: "HEAD")
        /// `POST`
        public static let post = Method(rawValue: "POST")
        /// `PUT`
        public static let put = Method(rawValue: "PUT")
        /// `PATCH`
        public static let patch = Method(rawValue: "PATCH")
        /// `DELETE`
        public static let delete = Method(rawValue: "DELETE")

        /// The method token.
        public var description: String { self.rawValue }
    }
}
