import Foundation

/// The repository's root directory, found from this file's path (`Tests/HeraldTestSupport/`),
/// so tests that read the repository's own files (sources, scripts, the build directory) find
/// them from any working directory, and every suite finds them the same way.
public enum Repository {
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A file or directory of the repository, by its path from the root.
    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }
}
