import Drills
import Foundation
import Testing

/// The drills' and the tests' own way to start a child process (not Foundation's `Process`,
/// whose `run()` on Linux now and then crashes its parent: `SpawnedProcess`).
@Suite struct SpawnedProcessTests {
    @Test func runReturnsHowItEndedAndWhatItPrinted() throws {
        let (ended, output) = try SpawnedProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(ended == .exited(3))
        #expect(output.contains("out") && output.contains("err"))
    }

    @Test func theChildInheritsNoDescriptorButItsStandardOnes() throws {
        // Given this process holding a descriptor of its own
        let held = open("/dev/null", O_RDONLY)
        defer { close(held) }
        #expect(held > 2)
        // When a child lists its descriptors (ls opens one more, to read the list)
        let (ended, output) = try SpawnedProcess.run("/bin/sh", ["-c", "ls /proc/self/fd"])
        // Then it has 0, 1, 2 and ls's own, not ours
        #expect(ended == .exited(0))
        let descriptors = output.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        #expect(descriptors.filter { $0 > 2 }.count <= 1, "\(descriptors)")
    }

    @Test func aSignalReachesTheChildAndHowItEndedIsKept() throws {
        // Given a child that would sleep for a minute
        let child = try SpawnedProcess.start("/bin/sleep", ["60"])
        #expect(child.isRunning)
        // When it is sent SIGTERM (not blocked, whichever thread started it)
        child.signal(SIGTERM)
        // Then it ends by that signal, and says so every time it is asked
        #expect(child.waitUntilExit() == .signaled(SIGTERM))
        #expect(child.termination == .signaled(SIGTERM) && !child.isRunning && child.terminationStatus == SIGTERM)
    }

    @Test func aMissingExecutableIsAnErrorThatNamesIt() {
        #expect {
            _ = try SpawnedProcess.start("/no/such/program", [])
        } throws: { error in
            "\(error)".contains("/no/such/program")
        }
    }
}
