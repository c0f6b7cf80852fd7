import NIOCore

/// A task executor that runs jobs on one NIO event loop: a connection's handling, preferring
/// it, runs on the thread that reads and writes its socket instead of hopping to Swift's
/// task pool and back for every request (two thread wake-ups a request below saturation,
/// where each costs more than the work it carries).
///
/// Only what never blocks belongs here: the intake's handlers await the database and the
/// broker, which run on threads of their own.
final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
