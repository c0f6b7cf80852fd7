/// The body of an App Store Server API error answer: `{"errorCode": 4040010, "errorMessage": "..."}`
/// ([Error codes](https://developer.apple.com/documentation/appstoreserverapi/error-codes)).
public struct AppStoreServerAPIErrorBody: Codable, Hashable, Sendable {
    /// `errorCode`.
    public var errorCode: Int?
    /// `errorMessage`.
    public var errorMessage: String?

    /// Creates a body.
    /// - Parameters:
    ///   - errorCode: The code.
    ///   - errorMessage: The message.
    public init(errorCode: Int?, errorMessage: String?) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// The code, typed.
    public var code: AppStoreServerAPIErrorCode? { errorCode.map(AppStoreServerAPIErrorCode.init(rawValue:)) }
}
