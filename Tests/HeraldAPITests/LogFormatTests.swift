import Foundation
import HeraldAPI
import HeraldComposition
import Logging
import Synchronization
import Testing

@Suite("Logs: text or JSON lines, never a secret")
struct LogFormatTests {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("A JSON log line carries time, level, label, message, metadata and source, one object per line")
    func jsonLine() throws {
        let lines = Lines()
        var logger = Logger(label: "herald.test") { label in JSONLogHandler(label: label, write: lines.append) }
        logger[metadataKey: "node"] = "node-a"
        logger.notice("device registered", metadata: ["app": "com.example", "count": "3"])
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        let fields = try object(line)
        #expect(fields["level"] as? String == "notice")
        #expect(fields["label"] as? String == "herald.test")
        #expect(fields["message"] as? String == "device registered")
        #expect(fields["metadata"] as? [String: String] == ["node": "node-a", "app": "com.example", "count": "3"])
        let time = try #require(fields["time"] as? String)
        #expect(time.hasSuffix("Z") && time.count == "2026-11-24T12:00:00.000Z".count, "\(time)")
    }

    @Test("Below the log level nothing is written")
    func levelFilters() {
        let lines = Lines()
        var logger = Logger(label: "herald.test") { label in JSONLogHandler(label: label, write: lines.append) }
        logger.logLevel = .warning
        logger.info("quiet")
        #expect(lines.all.isEmpty)
    }

    @Test("A JWT, a PEM key or a full device token in a message or metadata never reaches the log")
    func secretsAreScrubbed() throws {
        let lines = Lines()
        let logger = Logger(label: "herald.test") { label in JSONLogHandler(label: label, write: lines.append) }
        let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWSJ9.eyJpc3MiOiJURUFNIiwiaWF0IjoxfQ.c2lnbmF0dXJlc2lnbmF0dXJl"
        let token = String(repeating: "a5", count: 32)
        let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----"
        logger.error("sent bearer \(jwt) to \(token)", metadata: ["key": "\(pem)", "tokens": .array([.string(token)])])
        let line = try #require(lines.all.first)
        #expect(!line.contains(jwt) && !line.contains(token) && !line.contains("MIGHAgEA"), "\(line)")
        let fields = try object(line)
        #expect(fields["message"] as? String == "sent bearer eyJhbGci…[jwt] to a5a5a5a5…[token]")
        #expect((fields["metadata"] as? [String: Any])?["key"] as? String == "[pem]")
    }

    @Test("logFormat takes text or json, from the file or HERALD_LOG_FORMAT; anything else is refused")
    func configuration() throws {
        #expect(try ServerConfiguration.load(file: nil, environment: [:]).logFormat == .text)
        #expect(try ServerConfiguration.load(file: nil, environment: ["HERALD_LOG_FORMAT": "json"]).logFormat == .json)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(file: nil, environment: ["HERALD_LOG_FORMAT": "xml"])
        }
    }
}
