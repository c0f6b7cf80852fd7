import Database
import Foundation

/// A row of `accounts`: a player of the app, known by the backend's account id.
struct Account: Codable, Hashable, Sendable, Identifiable {
    var id: String
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id
        case createdAt = "created_at"
    }
}
