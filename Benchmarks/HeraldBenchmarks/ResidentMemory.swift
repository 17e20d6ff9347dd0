import Foundation

/// Resident set size, read from `/proc/<pid>/statm` (Linux).
enum ResidentMemory {
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// This process's resident bytes now, or nil where `/proc` is not available.
    static func bytes() -> Int? {
        bytes(statm: "/proc/self/statm")
    }

    /// Another process's resident bytes (a server started by `run.sh`), or nil if it is gone.
    static func bytes(pid: Int32) -> Int? {
        bytes(statm: "/proc/\(pid)/statm")
    }

    private static func bytes(statm path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * pageSize
    }
}
