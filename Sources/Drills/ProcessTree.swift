import Foundation

/// Processes by their parent links (`/proc/PID/stat`), for the drills that must SIGKILL a
/// server with everything it started: a process group does not cover a RabbitMQ node
/// (erl_child_setup starts a session of its own).
public enum ProcessTree {
    /// The processes whose parent is `pid`.
    public static func children(of pid: pid_t) -> [pid_t] {
        parents().compactMap { $0.value == pid ? $0.key : nil }
    }

    /// `pid` and every process below it.
    public static func descendants(of pid: pid_t) -> [pid_t] {
        let parents = parents()
        var found: Set<pid_t> = [pid]
        var grew = true
        while grew {
            grew = false
            for (child, parent) in parents where found.contains(parent) && !found.contains(child) {
                found.insert(child)
                grew = true
            }
        }
        return Array(found)
    }

    /// Every process's parent.
    static func parents() -> [pid_t: pid_t] {
        var parents: [pid_t: pid_t] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = pid_t(entry), let parent = parent(of: child) else { continue }
            parents[child] = parent
        }
        return parents
    }

    /// The fourth field of `/proc/PID/stat`, after the command name in parentheses (which
    /// may hold spaces).
    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}
