import Foundation
import PipelineCore
import PipelineTesting
import Testing

/// Threads that name themselves in the kernel, where operators' tools read the name.
@Suite struct NamedThreadTests {
    @Test func aNamedThreadCarriesItsNameInTheKernel_andInFoundation() async {
        let seen = await withCheckedContinuation { (done: CheckedContinuation<(String, String?), Never>) in
            Thread(named: "iap-test-named") {
                done.resume(returning: (currentThreadName(), Thread.current.name))
            }.start()
        }
        #expect(seen.0 == "iap-test-named")
        #expect(seen.1 == "iap-test-named")
    }

    @Test func aLongNameKeepsItsFirstFifteenBytes() async {
        let seen = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            Thread(named: "iap-a-name-longer-than-the-kernel-keeps") { done.resume(returning: currentThreadName()) }
                .start()
        }
        #expect(seen == "iap-a-name-long")
    }

    @Test func theNameIsTheThreadsOwn_notItsStarters() async {
        let starter = currentThreadName()
        let seen = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            Thread(named: "iap-test-other") { done.resume(returning: currentThreadName()) }.start()
        }
        #expect(seen == "iap-test-other")
        #expect(currentThreadName() == starter)
    }
}
