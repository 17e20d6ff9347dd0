import Foundation
import HeraldCore
import HeraldCrypto

/// The reference for the push benchmark: `h2load` (nghttp2) sending the same request to the same
/// sandbox: same method, path, headers (a provider token signed with the same key), payload
/// bytes, connections and streams per connection, and the same number of requests. Its
/// per-request times come from `--log-file` and go into the same histogram as Herald's.
enum H2Load {
    struct Result {
        var requests: Int
        var succeeded: Int
        var seconds: Double
        var rate: Double
        var latency: LatencyHistogram
        var threads: Int
    }

    static func run(port: Int, certificates: String, connections: Int, streams: Int, requests: Int,
                    scratch: String) throws -> Result {
        let push = try PushFixture.push(token: 0)
        let key = try ES256Key(contentsOfFile: "\(certificates)/dev-apns-key.p8")
        let token = try ProviderToken.sign(keyID: PushFixture.keyID, teamID: PushFixture.teamID, issuedAt: Date(), key: key)
        // Several URIs are used in turn, as Herald spreads its pushes over the same tokens.
        return try run(uris: PushFixture.tokens.map { "https://127.0.0.1:\(port)/3/device/\($0)" },
                       headers: push.headers + [("authorization", "bearer \(token.jwt)")], body: push.payload,
                       connections: connections, streams: streams, requests: requests, scratch: scratch)
    }

    /// `requests` POSTs of `body` with `headers` to `uris` in turn: the reference for any HTTP/2
    /// push channel (APNs, FCM, Web Push). Successes are 2xx answers.
    static func run(uris: [String], headers: [(name: String, value: String)], body: Data, connections: Int, streams: Int,
                    requests: Int, scratch: String) throws -> Result {
        let payload = (scratch as NSString).appendingPathComponent("h2load-payload-\(UUID().uuidString.prefix(8)).bin")
        let log = (scratch as NSString).appendingPathComponent("h2load-log-\(UUID().uuidString.prefix(8)).tsv")
        try body.write(to: URL(fileURLWithPath: payload))
        defer {
            try? FileManager.default.removeItem(atPath: payload)
            try? FileManager.default.removeItem(atPath: log)
        }
        // One worker thread per connection, up to the CPUs: h2load's best on this machine.
        let threads = max(1, min(connections, ProcessInfo.processInfo.activeProcessorCount))
        var arguments = ["-n", "\(requests)", "-c", "\(connections)", "-m", "\(streams)", "-t", "\(threads)",
                         "-d", payload, "--log-file", log]
        for header in headers {
            arguments += ["-H", "\(header.name): \(header.value)"]
        }
        arguments += uris
        let output = try ChildProcess.runTool("h2load", arguments)

        var seconds = Double.nan, rate = Double.nan, succeeded = 0, total = 0
        for line in output.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "," })
            if line.hasPrefix("finished in"), words.count >= 4 {
                seconds = duration(String(words[2]))  // "10.01s", "85.12ms"
                rate = Double(words[3]) ?? .nan
            } else if line.hasPrefix("requests:") {
                total = Int(words[1]) ?? 0
                if let index = words.firstIndex(of: "succeeded"), index > 0 { succeeded = Int(words[index - 1]) ?? 0 }
            } else if line.hasPrefix("status codes:"), let twoHundreds = Int(words[2]) {
                succeeded = min(succeeded, twoHundreds)
            }
        }
        guard total > 0, seconds.isFinite else {
            throw OptionsError("unreadable h2load output: \(output.prefix(400))")
        }

        // Columns: start (µs since the epoch), status, µs until the end of the response.
        var latency = LatencyHistogram()
        let data = try Data(contentsOf: URL(fileURLWithPath: log))
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var column = 0, value = 0, status = 0, negative = false
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "-"):
                    negative = true
                case UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                    if column == 1 { status = negative ? -value : value }
                    if column == 2, (200..<300).contains(status) { latency.record(Double(value) / 1e6) }
                    column = byte == UInt8(ascii: "\n") ? 0 : column + 1
                    value = 0
                    negative = false
                default:
                    break
                }
            }
        }
        // h2load's req/s counts every finished request; only successes count on both sides.
        return Result(requests: total, succeeded: succeeded, seconds: seconds, rate: rate * Double(succeeded) / Double(total),
                      latency: latency, threads: threads)
    }

    /// h2load prints durations as "10.01s", "85.12ms" or "950us".
    static func duration(_ text: String) -> Double {
        for (suffix, scale) in [("ms", 1e-3), ("us", 1e-6), ("s", 1.0)] where text.hasSuffix(suffix) {
            return (Double(text.dropLast(suffix.count)) ?? .nan) * scale
        }
        return .nan
    }
}
