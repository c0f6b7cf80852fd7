import PipelineCore

/// What a verdict does to what it is about (a receipt, an Apple notification, a
/// subscription check) before any money moves: the one status machine all three share.
public enum VerdictStep: Hashable, Sendable {
    /// It had ended already (a redelivery): nothing changes.
    case alreadyEnded
    /// The verdict's outcome is one this build does not know: nothing changes.
    case unknownOutcome(String)
    /// Progress only: a verify attempt failed transiently and it waits on a delay tier.
    /// `reason` is the last error, when the verdict names one.
    case retrying(reason: String?)
    /// It ends without money moving, with a reason that is never empty.
    case ended(Ending, reason: String)
    /// Verified: settle what it carries.
    case settle

    /// How something ends without being settled.
    public enum Ending: String, Hashable, Sendable {
        /// Failed verification for good.
        case rejected
        /// Dead-lettered after its attempts ran out, or as poison.
        case dead
    }

    /// The step for `verdict` applied to something that has ended already or not.
    public init(_ verdict: Verdict, hasEnded: Bool) {
        guard !hasEnded else {
            self = .alreadyEnded
            return
        }
        switch verdict.outcome {
        case nil: self = .unknownOutcome(verdict.rawOutcome)
        case .valid: self = .settle
        case .retrying: self = .retrying(reason: Self.nonEmpty(verdict.reason))
        case .rejected: self = .ended(.rejected, reason: Self.nonEmpty(verdict.reason) ?? "rejected")
        case .dead: self = .ended(.dead, reason: Self.nonEmpty(verdict.reason) ?? "dead-lettered")
        }
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmedOfWhitespaceAndNewlines.isEmpty else { return nil }
        return text
    }
}
