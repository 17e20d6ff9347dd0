import Foundation

/// The repository's `Certs/` (dev CA, sandbox certificate, dev token key, dev client identity),
/// found from this file's path so tests run from any working directory.
public enum TestCertificates {
    public static let directory: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = url.appendingPathComponent("Certs")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("dev-ca.pem").path) {
                return candidate.path
            }
            url.deleteLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath + "/Certs"
    }()

    /// The path of one file in `Certs/`.
    public static func path(_ name: String) -> String { directory + "/" + name }
}
