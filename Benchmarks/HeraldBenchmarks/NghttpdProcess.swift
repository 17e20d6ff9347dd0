import Foundation
import HeraldTestSupport

/// The second push target: nghttpd (nghttp2's own server) answering every push with an empty
/// `200` from a file per device token (a token without a file gets `404`). It costs far less
/// per request than the sandbox, which validates each push, so the client, not the server, sets
/// the pace: the comparison the "≥ 0.9× h2load" goal is about.
final class NghttpdProcess {
    let process: Process
    let port: Int
    let kind = "nghttpd"
    private let docroot: String

    /// - Parameter tokens: the device tokens it answers `200` for.
    init(certificates: String, scratch: String, tokens: [String] = PushFixture.tokens + PushFixture.batchTokens) throws {
        docroot = (scratch as NSString).appendingPathComponent("nghttpd-\(UUID().uuidString.prefix(8))")
        let devices = (docroot as NSString).appendingPathComponent("3/device")
        try FileManager.default.createDirectory(atPath: devices, withIntermediateDirectories: true)
        for token in tokens {
            _ = FileManager.default.createFile(atPath: (devices as NSString).appendingPathComponent(token), contents: Data())
        }
        port = try unusedLoopbackPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["nghttpd", "--address=127.0.0.1", "-d", docroot, "\(port)",
                             "\(certificates)/sandbox-server.key", "\(certificates)/sandbox-server.pem"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let started = Date()
        while !Self.accepts(port: port) {
            guard process.isRunning, Date().timeIntervalSince(started) < 10 else {
                stop()
                throw OptionsError("nghttpd did not start on port \(port)")
            }
            usleep(20_000)
        }
    }

    var pid: Int32 { process.processIdentifier }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)  // nghttpd does not exit on SIGTERM
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: docroot)
    }

    deinit { stop() }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
