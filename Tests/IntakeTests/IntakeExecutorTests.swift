import Hummingbird
import NIOPosix
import Testing

@testable import Intake

/// Where a request is handled: on the event loop that read it (``EventLoopTaskExecutor``),
/// not on Swift's task pool, so that a request below saturation wakes no other thread
/// before it reaches the database.
@Suite struct IntakeExecutorTests {
    @Test func aRequestIsHandledOnTheEventLoopThatReadIt_andSoIsWhatFollowsAnAwait() async throws {
        try await LiveIntake.run(routes: { router in
            router.get("test/thread") { _, _ in
                let before = MultiThreadedEventLoopGroup.currentEventLoop != nil
                try await Task.sleep(for: .milliseconds(5))
                let after = MultiThreadedEventLoopGroup.currentEventLoop != nil
                return "\(before ? "loop" : "pool") \(after ? "loop" : "pool")"
            }
        }) { intake in
            let response = try await intake.request("GET", "/test/thread")
            #expect(response?.body == "loop loop")
        }
    }
}
