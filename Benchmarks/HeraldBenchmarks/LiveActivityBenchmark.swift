import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `herald-bench live-activities`: scheduled Live Activity updates beside scheduled alerts, in
/// one run, through a real `herald serve` pushing to `herald sandbox` (token auth, as Live
/// Activities need). Both kinds are scheduled through the HTTP API, interleaved one for one on
/// the same devices at a steady rate, so the alerts are the reference: the same scheduler,
/// dispatcher, client and sandbox, measured at the same moments.
///
/// Lateness is the sandbox's arrival time minus the occurrence's instant (both on this machine's
/// clock); throughput is how many of a kind arrived per second from the first instant to the
/// last arrival.
enum LiveActivityBenchmark {
    static let devices = 100

    static func run(_ options: Options) async throws -> [ResultRow] {
        guard FileManager.default.isExecutableFile(atPath: options.herald) else {
            throw OptionsError("live-activities needs --herald, the herald binary")
        }
        let certificates = URL(fileURLWithPath: options.certificates).standardizedFileURL.path
        let sandbox = try SandboxProcess(herald: options.herald, certificates: certificates)
        defer { sandbox.stop() }
        let scratch = try ScratchDirectory(under: options.scratch, name: "live-activities")
        defer { scratch.remove() }
        let server = try ClusterBenchmark.startNode(0, setup: .init(nodes: 1, database: nil), herald: options.herald,
                                                    directory: scratch.path)
        defer { ClusterBenchmark.stop(server) }
        let api = try HTTPConnection(port: try listeningPort(in: "\(scratch.path)/node-0.out"))
        try register(api, sandboxPort: sandbox.port, certificates: certificates)

        // Both kinds at `activityRate` a second together, from a start far enough ahead to
        // schedule them all (about 1,500 requests a second on this machine, debug builds fewer).
        let count = options.activityPushes
        let interval = 1 / Double(options.activityRate)
        let start = Date().addingTimeInterval(Double(2 * count) / 700 + 2).timeIntervalSince1970.rounded(.up)
        var instants: [String: Double] = [:]
        for index in 0..<(2 * count) {
            let instant = start + Double(index) * interval
            let device = index / 2 % devices
            let kind = index % 2 == 0 ? "alert" : "activity"
            let id = "\(kind)-\(index)"
            instants["\(id)#0"] = instant
            let content = kind == "alert"
                ? #""alert": {"title": "Score", "body": "Lyon 1, Nantes 0"}"#
                : #""liveActivity": {"event": "update", "activity": "match-\#(device)", "contentState": {"home": 1, "away": 0}}"#
            let body = #"{"id": "\#(id)", "fireDate": "\#(rfc3339(instant))", \#(content)}"#
            let reply = try api.request("POST", "/v1/apps/\(app)/devices/d-\(device)/notifications", body: body)
            guard reply.status == 201 else { throw OptionsError("schedule \(id): HTTP \(reply.status)") }
        }
        let lead = start - Date().timeIntervalSince1970
        progress("live-activities: \(2 * count) scheduled, \(String(format: "%.1f", lead)) s before the first instant")
        if lead < 0.5 { progress("live-activities: warning: scheduling ran into the first instants") }

        let last = start + Double(2 * count - 1) * interval
        let admin = try HTTPConnection(port: sandbox.adminPort)
        var arrivals: [String: [(id: String, at: Double)]] = [:]
        let deadline = Date(timeIntervalSince1970: last + 60)
        repeat {
            try await Task.sleep(for: .seconds(max(1, last + 1 - Date().timeIntervalSince1970)))
            arrivals = try collect(admin)
        } while arrivals.values.map(\.count).reduce(0, +) < 2 * count && Date() < deadline
        let alerts = arrivals["alert", default: []]
        let activities = arrivals["liveactivity", default: []]
        guard alerts.count == count, activities.count == count else {
            let missing = Set(instants.keys).subtracting((alerts + activities).map(\.id)).sorted().prefix(5)
            throw OptionsError("live-activities: \(alerts.count) alerts and \(activities.count) Live Activity pushes arrived, "
                               + "not \(count) each; missing \(missing.joined(separator: ", "))")
        }
        func lateness(_ arrived: [(id: String, at: Double)]) -> LatencySummary {
            LatencySummary(arrived.map { $0.at - (instants[$0.id] ?? $0.at) })
        }
        func throughput(_ arrived: [(id: String, at: Double)]) -> Double {
            Double(arrived.count) / max(0.001, (arrived.map(\.at).max() ?? start) - start)
        }
        let (alertLateness, activityLateness) = (lateness(alerts), lateness(activities))
        let label = "\(Format.grouped(count)) scheduled Live Activity updates beside \(Format.grouped(count)) alerts, "
            + "\(Format.grouped(options.activityRate))/s together, herald serve → sandbox"
        return [
            ResultRow(benchmark: "\(label): lateness p50 / p99",
                      measured: "\(Format.milliseconds(activityLateness.p50)) / \(Format.milliseconds(activityLateness.p99))",
                      reference: "alerts, same run: \(Format.milliseconds(alertLateness.p50)) / \(Format.milliseconds(alertLateness.p99))",
                      ratio: activityLateness.p99 / alertLateness.p99, goal: "never early; p99 as alerts' (≤ 1.5×)",
                      met: activityLateness.min >= 0 && activityLateness.p99 <= 1.5 * alertLateness.p99),
            ResultRow(benchmark: "\(label): throughput",
                      measured: Format.rate(throughput(activities), unit: "pushes/s"),
                      reference: "alerts, same run: \(Format.rate(throughput(alerts), unit: "pushes/s"))",
                      ratio: throughput(activities) / throughput(alerts), goal: "as alerts (≥ 0.9×)",
                      met: throughput(activities) >= 0.9 * throughput(alerts)),
        ]
    }

    static let app = "bench.live"

    /// The app (token auth, pushing to the sandbox) and its devices, each with a device token for
    /// alerts and a running activity's token.
    static func register(_ api: HTTPConnection, sandboxPort: Int, certificates: String) throws {
        let push = #"{"push": {"environment": "https://127.0.0.1:\#(sandboxPort)", "caFile": "\#(certificates)/dev-ca.pem", "auth": {"type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001", "keyFile": "\#(certificates)/dev-apns-key.p8"}}}"#
        guard [200, 201].contains(try api.request("PUT", "/v1/apps/\(app)", body: push).status) else {
            throw OptionsError("live-activities: the app was refused")
        }
        for device in 0..<devices {
            let path = "/v1/apps/\(app)/devices/d-\(device)"
            let registered = try api.request("PUT", path, body: #"{"timeZone": "UTC", "token": "\#(token(device, family: 0xa1))"}"#)
            let activity = try api.request("PUT", path + "/activities/match-\(device)",
                                           body: #"{"token": "\#(token(device, family: 0xb2))", "attributesType": "MatchAttributes"}"#)
            guard [200, 201].contains(registered.status), [200, 201].contains(activity.status) else {
                throw OptionsError("live-activities: device \(device) was refused")
            }
        }
    }

    /// What the sandbox received, by push type: each push's occurrence id (its collapse id) and
    /// arrival time.
    static func collect(_ admin: HTTPConnection) throws -> [String: [(id: String, at: Double)]] {
        var arrivals: [String: [(id: String, at: Double)]] = [:]
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for device in 0..<devices {
            for family: UInt8 in [0xa1, 0xb2] {
                let reply = try admin.request("GET", "/inbox/\(token(device, family: family))")
                guard let json = try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any],
                      let entries = json["notifications"] as? [[String: Any]] else { continue }
                for entry in entries {
                    // RFC 3339 with milliseconds, or without them on a whole second.
                    guard let type = entry["pushType"] as? String, let id = entry["collapseId"] as? String,
                          let text = entry["receivedAt"] as? String,
                          let at = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) else { continue }
                    arrivals[type, default: []].append((id, at.timeIntervalSince1970))
                }
            }
        }
        return arrivals
    }

    static func token(_ device: Int, family: UInt8) -> String {
        String(repeating: String(format: "%02x", family), count: 28) + String(format: "%08x", device)
    }

    static func rfc3339(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// The port in `herald listening on http://127.0.0.1:PORT`.
    static func listeningPort(in file: String) throws -> Int {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        guard let range = text.range(of: "herald listening on http://127.0.0.1:"),
              let port = Int(text[range.upperBound...].prefix(while: \.isNumber)) else {
            throw OptionsError("live-activities: no listening line in \(file)")
        }
        return port
    }
}
