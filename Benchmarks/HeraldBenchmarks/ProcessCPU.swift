import Foundation

/// CPU time (user + system) spent by processes, to show where a throughput limit comes from.
enum ProcessCPU {
    /// Seconds used by every child this process has waited for: the difference around one
    /// child's run is that child's CPU time.
    static func waitedForChildren() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Seconds used so far by a running process (from `/proc/<pid>/stat`), or nil if it is gone.
    static func seconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (name)": state is field 3, utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Seconds of CPU time the whole machine has spent busy, and in all, summed over its CPUs
    /// (the first line of `/proc/stat`): every process's share, not only ours.
    static func machine() -> (busy: Double, total: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 5 else { return nil }
        let idle = ticks[3] + ticks[4]  // idle and iowait
        let total = ticks.prefix(8).reduce(0, +)  // guest time is already in user
        let hertz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((total - idle) / hertz, total / hertz)
    }

    /// The one-minute load average.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }
}
