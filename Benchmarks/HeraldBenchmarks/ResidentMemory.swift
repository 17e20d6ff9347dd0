import Foundation

/// The process's resident set size, read from `/proc/self/statm` (Linux).
enum ResidentMemory {
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Resident bytes now, or nil where `/proc` is not available.
    static func bytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * pageSize
    }
}
