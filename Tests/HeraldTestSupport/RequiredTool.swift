import Foundation

/// A tool a test needs (nghttpd, openssl, …) that is not installed: the test fails with this
/// rather than passing without having checked anything. `make test` installs every such tool
/// (scripts/install-deps.sh).
public struct MissingTool: Error, CustomStringConvertible {
    public let name: String
    public let debianPackage: String

    public var description: String {
        "\(name) is not installed, so this test cannot run (Debian: apt-get install \(debianPackage), or `make deps`)"
    }
}

/// The path of `name` on PATH (plus the sbin folders, where Debian puts nghttpd).
///
/// - Parameters:
///   - name: the executable's file name.
///   - debianPackage: the package that installs it, named in the failure.
/// - Throws: ``MissingTool`` when no such executable exists, which fails the test.
///
/// ```swift
/// let nghttpd = try requireExecutable("nghttpd", debianPackage: "nghttp2-server")
/// ```
public func requireExecutable(_ name: String, debianPackage: String) throws -> String {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/usr/local/sbin:/sbin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw MissingTool(name: name, debianPackage: debianPackage)
}
