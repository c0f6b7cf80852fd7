import Foundation

/// A row of `accounts`: a player of the app, known by the backend's account id.
package struct Account: Codable, Hashable, Sendable, Identifiable {
    package var id: String
    package var createdAt: Date

    package init(id: String, createdAt: Date) {
        self.id = id
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case createdAt = "created_at"
    }
}
