import Database
import Logging
import NIOCore
import PostgresNIO
import SettlementWriter

extension PostgresConnection {
    /// Runs `query` and awaits its answer, with the number of rows it changed.
    ///
    /// postgres-nio 1.33 writes a query to its channel without a promise: on a connection
    /// the server has just closed (a restart, `pg_terminate_backend`), the write fails and
    /// the query's future never completes, so awaiting it alone could hang a stage for good.
    /// The wait here also ends when the connection closes (checked every second) or
    /// `deadline` passes (the work's bound: a server that answers nothing, or a statement
    /// stuck past the work's time); either closes the connection and throws
    /// ``SQLError/unreachable(_:)``, which callers treat as transient. Awaited: no thread waits.
    func answer(to query: PostgresQuery, deadline limit: Duration, logger: Logger) async throws -> PostgresQueryResult {
        guard !isClosed else { throw SQLError.unreachable("PostgreSQL: the connection is closed") }
        let loop = eventLoop
        let answer = loop.makePromise(of: PostgresQueryResult.self)
        self.query(query, logger: logger).cascade(to: answer)
        let deadline = NIODeadline.now() + TimeAmount(limit)
        // A second completion of `answer` is ignored, so a late watch is harmless.
        let watch = loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [self] _ in
            if isClosed {
                answer.fail(SQLError.unreachable("PostgreSQL: the connection closed before the statement's answer"))
            } else if NIODeadline.now() > deadline {
                answer.fail(SQLError.unreachable("PostgreSQL: no answer within \(limit)"))
                let _: EventLoopFuture<Void> = close()
            }
        }
        answer.futureResult.whenComplete { _ in watch.cancel() }
        return try await answer.futureResult.get()
    }
}
