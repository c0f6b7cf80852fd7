import Foundation
import GRDB

/// A row of `accounts`: a player of the app, known by the backend's account id.
struct Account: Codable, Hashable, Sendable, Identifiable {
    var id: String
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id
        case createdAt = "created_at"
    }
}

extension Account: FetchableRecord, PersistableRecord {
    static let databaseTableName = "accounts"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let createdAt = Column(CodingKeys.createdAt)
    }

    /// Creates the account unless it exists. (Not `INSERT OR IGNORE`, which would also
    /// swallow a CHECK failure such as an over-long id.)
    static func ensure(_ db: Database, id: String, now: Date) throws {
        try db.execute(
            sql: "INSERT INTO accounts (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
            arguments: [id, now])
    }
}
