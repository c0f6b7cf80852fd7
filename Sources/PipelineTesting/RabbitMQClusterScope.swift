import Testing

/// Runs a suite inside one ``RabbitMQCluster``, built before its first test and torn down
/// after its last, also when one fails; its tests find it in ``RabbitMQCluster/current``.
///
/// ```swift
/// @Suite(.serialized, .rabbitMQCluster) struct AloneClusterTests { ... }
/// ```
public struct RabbitMQClusterScope: SuiteTrait, TestScoping {
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await RabbitMQCluster.run { cluster in
            try await RabbitMQCluster.$current.withValue(cluster) { try await function() }
        }
    }
}

extension Trait where Self == RabbitMQClusterScope {
    /// The suite runs inside a three-node RabbitMQ cluster of its own.
    public static var rabbitMQCluster: Self { RabbitMQClusterScope() }
}
