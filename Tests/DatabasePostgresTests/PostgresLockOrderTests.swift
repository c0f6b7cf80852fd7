import Database
import DatabasePostgres
import PipelineTesting
import Testing

@testable import DatabaseTesting

/// The relay marking receipts published and the fulfiller settling them update the same rows,
/// each in the order its plan visits them: at 950 receipts/s, one run in three deadlocked,
/// PostgreSQL found it after `deadlock_timeout` and aborted the fulfiller's batch, and
/// webhooks' p99 was 1.1 s. Both now lock the rows first in the keys' byte order
/// (``SQLSession/lockInKeyOrder(_:key:_:)``).
@Suite struct PostgresLockOrderTests {
    @Test func rowsAreTakenInTheKeysOrderWhateverOrderTheyAreGivenIn() async throws {
        try await PostgresFixture.withDatabase(connections: 4) { database in
            try await database.transaction { db in
                try await db.execute("CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL)")
                try await db.execute("INSERT INTO items (id, n) VALUES ('a', 0), ('b', 0), ('c', 0)")
            }
            let (held, holding) = AsyncStream<Void>.makeStream()
            let (release, releasing) = AsyncStream<Void>.makeStream()
            // One transaction holds b
            let holder = Task {
                try await database.transaction { db in
                    _ = try await db.rows("SELECT id FROM items WHERE id = 'b' FOR UPDATE", [])
                    holding.yield()
                    for await _ in release { break }
                }
            }
            for await _ in held { break }
            // Another locks c, a, b, given in that order, and updates them
            let updater = Task {
                try await database.transaction { db in
                    try await db.lockInKeyOrder("items", key: "id", ["c", "a", "b"])
                    try await db.execute("UPDATE items SET n = n + 1")
                }
            }
            // It takes a, then waits for b: c is still free
            func free(_ id: String) async throws -> Bool {
                try await database.transaction { db in
                    !(try await db.rows("SELECT id FROM items WHERE id = '\(id)' FOR UPDATE SKIP LOCKED", [])).isEmpty
                }
            }
            var waited = 0
            while try await free("a"), waited < 200 {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            #expect(try await !free("a"))
            #expect(try await free("c"))
            // Once b is let go, it finishes
            releasing.yield()
            try await holder.value
            try await updater.value
            let counts = try await database.snapshot { db in
                try await db.rows("SELECT n FROM items ORDER BY id", []).map { try $0.get("n", as: Int.self) }
            }
            #expect(counts == [1, 1, 1])
        }
    }
}
