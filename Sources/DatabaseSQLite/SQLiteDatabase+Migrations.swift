import Database
import DatabaseSchema
import GRDB
import SettlementWriter

extension SQLiteDatabase {
    /// The schema's migrations (``Schema/migrations``), each registered as `v<version>`: the
    /// identifiers files have recorded in `grdb_migrations` since v1, so an existing file
    /// runs only what it lacks. GRDB runs each in one transaction with foreign keys off and
    /// checks them all before it commits, as a table rebuild needs.
    ///
    /// `eraseDatabaseOnSchemaChange` is deliberately not used, not even in DEBUG: this file
    /// holds accepted receipts and money, and is shared by several processes, so a debug
    /// build that erased it would break the promise behind every 202 already answered.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in Schema.migrations {
            migrator.registerMigration("v\(migration.version)") { db in
                for statement in migration.sqlite { try db.execute(sql: statement) }
            }
        }
        return migrator
    }
}
