#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files. Every `iap` process raises its soft limit to the hard
/// one at start (`IAP.main`): services are often started with a soft limit of 1,024, far
/// below what an intake with thousands of connections needs, while the hard limit is there
/// to be used. The intake then fits its connection caps under what it got.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard one; returns the soft limit then.
    @discardableResult
    public static func raiseToHard() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return current }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &raised)
        }
        return current
    }

    /// The soft limit: how many files this process may have open.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return Int.max }
        return Int(clamping: limit.rlim_cur)
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
