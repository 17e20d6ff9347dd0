import Foundation
import HeraldSandbox
import Testing

@Suite("Sandbox configuration")
struct ConfigurationTests {
    @Test("defaults follow the repository layout and APNs' development port")
    func defaults() {
        let configuration = SandboxConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 2197)
        #expect(configuration.adminHost == "127.0.0.1")
        #expect(configuration.adminPort == 2198)
        #expect(configuration.certificateFile == "Certs/sandbox-server.pem")
        #expect(configuration.keyFile == "Certs/sandbox-server.key")
        #expect(configuration.clientCAFile == "Certs/dev-ca.pem")
        #expect(configuration.trustedKeys == ["DEVKEY0001": "Certs/dev-apns-key.pub.pem"])
    }

    @Test("the admin API refuses to listen beyond loopback")
    func adminMustBeLoopback() async {
        let configuration = SandboxConfiguration(port: 0, adminHost: "0.0.0.0", adminPort: 0, certificatesDirectory: Certs.directory)
        await #expect(throws: SandboxError.adminNotLoopback(host: "0.0.0.0")) {
            try await SandboxGateway(configuration: configuration).start()
        }
    }

    @Test("a missing certificate directory is reported by path")
    func missingCertificates() async {
        let configuration = SandboxConfiguration(port: 0, adminPort: 0, certificatesDirectory: "/nonexistent")
        await #expect(throws: SandboxError.missingFile("/nonexistent/sandbox-server.pem")) {
            try await SandboxGateway(configuration: configuration).start()
        }
    }

    @Test("faults JSON may leave out any field")
    func partialFaultsDecode() throws {
        let faults = try JSONDecoder().decode(SandboxFaults.self, from: Data(#"{"unregistered":["ab"]}"#.utf8))
        #expect(faults == SandboxFaults(unregistered: ["ab"]))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SandboxFaults.self, from: Data(#"{"goAwayAfterStreams":0}"#.utf8))
        }
    }
}
