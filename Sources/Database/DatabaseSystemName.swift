import Synchronization

/// OpenTelemetry's `db.system.name` for a database (`sqlite`, `postgresql`), for the spans
/// of stages that trace: read once, in a read transaction, then kept.
public final class DatabaseSystemName: Sendable {
    private let database: any SQLDatabase
    private let known = Mutex<String?>(nil)

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    public var value: String {
        get async {
            if let known = known.withLock({ $0 }) { return known }
            let dialect = try? await database.snapshot { $0.dialect }
            let name =
                switch dialect {
                case .sqlite: "sqlite"
                case .postgres: "postgresql"
                case nil: "other_sql"
                }
            if dialect != nil { known.withLock { $0 = name } }
            return name
        }
    }
}
