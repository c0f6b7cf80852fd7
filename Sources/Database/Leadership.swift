import Foundation

/// Whether this process leads a job only one process may run at a time (the subscription
/// scheduler): asked before each round of the job.
public protocol Leadership: Sendable {
    func isLeader() async -> Bool
    /// Gives the lead up, so that another process takes over at once (at shutdown).
    func resign() async
}

extension Leadership {
    public func resign() async {}
}

/// One host, one SQLite file: every process may run the job; its claims are transactions
/// on the one writer, so two never take the same row.
public struct AlwaysLeader: Leadership {
    public init() {}
    public func isLeader() async -> Bool { true }
}
