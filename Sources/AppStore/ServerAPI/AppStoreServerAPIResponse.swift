/// A decoded App Store Server API answer and the deployment that gave it.
///
/// ```swift
/// let info = try await api.getTransactionInfo(transactionID: id)
/// if info.environment == .sandbox { ... }
/// let jws = info.body.signedTransactionInfo
/// ```
public struct AppStoreServerAPIResponse<Body: Sendable>: Sendable {
    /// The decoded body.
    public var body: Body
    /// Which deployment answered: `sandbox` after a `4040010` fallback.
    public var environment: AppStoreServerAPIEnvironment

    /// Creates a response.
    /// - Parameters:
    ///   - body: The decoded body.
    ///   - environment: Which deployment answered.
    public init(body: Body, environment: AppStoreServerAPIEnvironment) {
        self.body = body
        self.environment = environment
    }
}

extension AppStoreServerAPIResponse: Equatable where Body: Equatable {}
extension AppStoreServerAPIResponse: Hashable where Body: Hashable {}
