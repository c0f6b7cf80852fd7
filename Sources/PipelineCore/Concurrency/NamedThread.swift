import Foundation

extension Thread {
    /// A thread that gives itself `name` in the kernel as it starts, where `top -H`, `perf` and
    /// `/proc/<pid>/task/*/comm` read it (at most 15 bytes of it).
    ///
    /// Foundation's `Thread.name` set before `start()` does not reach the kernel, and set after
    /// it races with the thread: only the thread itself names itself for certain.
    public convenience init(named name: String, _ body: @escaping @Sendable () -> Void) {
        self.init {
            Thread.nameCurrentThread(name)
            body()
        }
        self.name = name
    }

    /// Gives the calling thread `name` in the kernel. Glibc's `pthread_setname_np` is not
    /// visible to Swift, so this writes `/proc/thread-self/comm`, which is what it does too.
    public static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
