import Database
import PipelineCore

extension AccountHistoryRepository {
    /// The stored accounts `text` leads to (as ``accounts(matching:)`` finds them) in the apps
    /// `naming` looks at: a player id in every app finds the player's account in each.
    public func accounts(matching text: String, naming: AccountNaming) async throws -> [String] {
        var found = Set<String>()
        for candidate in naming.candidates(text) {
            found.formUnion(try await accounts(matching: candidate).filter(naming.includes))
        }
        return found.sorted()
    }
}
