import Foundation

/// SIGTERM and SIGINT must reach the process for a graceful shutdown. A supervisor (or a
/// parent such as Foundation's `Process`) may start us with them blocked, and a blocked
/// mask is inherited by every thread: unblock them before any thread starts.
enum ShutdownSignals {
    static func unblock() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
