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
        defer { ClusterBenchmark.stop(server.process) }
        let api = try HTTPConnection(port: server.port)
        try register(api, sandboxPort: sandbox.port, certificates: certificates)

        let admin = try HTTPConnection(port: sandbox.adminPort)
        let count = options.activityPushes
        // Steady: both kinds at `activityRate` a second together, for lateness. Burst: as many
        // again all due at one instant, for how fast each kind is handed over.
        let steady = try await phase("steady", count: count, interval: 1 / Double(options.activityRate), api: api, admin: admin)
        let burst = try await phase("burst", count: count, interval: 0, api: api, admin: admin)
        let label = "\(Format.grouped(count)) scheduled Live Activity updates beside \(Format.grouped(count)) alerts, herald serve → sandbox"
        let (alertLateness, activityLateness) = (steady.lateness(.alert), steady.lateness(.activity))
        let (alertRate, activityRate) = (burst.throughput(.alert), burst.throughput(.activity))
        return [
            // The earliest arrival is shown, not judged: both kinds share the batch window that
            // may hand over a millisecond or two early (issue 23's "never early").
            ResultRow(benchmark: "\(label), \(Format.grouped(options.activityRate))/s together: lateness p50 / p99 (earliest)",
                      measured: "\(Format.milliseconds(activityLateness.p50)) / \(Format.milliseconds(activityLateness.p99)) "
                          + "(\(Format.milliseconds(activityLateness.min)))",
                      reference: "alerts, same run: \(Format.milliseconds(alertLateness.p50)) / \(Format.milliseconds(alertLateness.p99)) "
                          + "(\(Format.milliseconds(alertLateness.min)))",
                      ratio: activityLateness.p99 / alertLateness.p99, goal: "p99 as alerts' (≤ 1.5×)",
                      met: activityLateness.p99 <= 1.5 * alertLateness.p99),
            ResultRow(benchmark: "\(label), all due at one instant: throughput",
                      measured: Format.rate(activityRate, unit: "pushes/s"),
                      reference: "alerts, same run: \(Format.rate(alertRate, unit: "pushes/s"))",
                      ratio: activityRate / alertRate, goal: "as alerts (≥ 0.9×)", met: activityRate >= 0.9 * alertRate),
        ]
    }

    enum Kind: String { case alert, activity }

    /// What arrived in one phase, with each occurrence's instant.
    struct Arrivals {
        var instants: [String: Double]
        var byKind: [Kind: [(id: String, at: Double)]]
        var first: Double

        func lateness(_ kind: Kind) -> LatencySummary {
            LatencySummary(byKind[kind, default: []].map { $0.at - (instants[$0.id] ?? $0.at) })
        }

        /// Arrivals a second, from the first instant to the kind's last arrival.
        func throughput(_ kind: Kind) -> Double {
            let arrived = byKind[kind, default: []]
            return Double(arrived.count) / max(0.001, (arrived.map(\.at).max() ?? first) - first)
        }
    }

    /// Schedules `count` of each kind, interleaved one for one, `interval` apart (0: all at one
    /// instant), from a start far enough ahead to schedule them all over one connection (each
    /// answered once durable: about 500 requests a second here); waits until all arrived.
    static func phase(_ name: String, count: Int, interval: Double, api: HTTPConnection, admin: HTTPConnection) async throws -> Arrivals {
        let start = Date().addingTimeInterval(Double(2 * count) / 350 + 2).timeIntervalSince1970.rounded(.up)
        var instants: [String: Double] = [:]
        for index in 0..<(2 * count) {
            let instant = start + Double(index) * interval
            let device = index / 2 % devices
            let kind: Kind = index % 2 == 0 ? .alert : .activity
            let id = "\(name)-\(kind.rawValue)-\(index)"
            instants["\(id)#0"] = instant
            let content = kind == .alert
                ? #""alert": {"title": "Score", "body": "Lyon 1, Nantes 0"}"#
                : #""liveActivity": {"event": "update", "activity": "match-\#(device)", "contentState": {"home": 1, "away": 0}}"#
            let body = #"{"id": "\#(id)", "fireDate": "\#(rfc3339(instant))", \#(content)}"#
            let reply = try api.request("POST", "/v1/apps/\(app)/devices/d-\(device)/notifications", body: body)
            guard reply.status == 201 else {
                throw OptionsError("schedule \(id): HTTP \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            }
        }
        let lead = start - Date().timeIntervalSince1970
        progress("live-activities: \(name): \(2 * count) scheduled, \(String(format: "%.1f", lead)) s before the first instant")
        if lead < 0.5 { progress("live-activities: warning: scheduling ran into the first instants") }

        let last = start + Double(2 * count - 1) * interval
        var arrived: [Kind: [(id: String, at: Double)]] = [:]
        let deadline = Date(timeIntervalSince1970: last + 60)
        repeat {
            try await Task.sleep(for: .seconds(max(1, last + 1 - Date().timeIntervalSince1970)))
            arrived = try collect(admin, phase: name)
        } while arrived.values.map(\.count).reduce(0, +) < 2 * count && Date() < deadline
        let ids = Set(arrived.values.flatMap { $0.map(\.id) })
        guard ids.count == 2 * count else {
            let missing = Set(instants.keys).subtracting(ids).sorted().prefix(5)
            throw OptionsError("live-activities: \(name): \(ids.count) of \(2 * count) arrived; missing \(missing.joined(separator: ", "))")
        }
        return Arrivals(instants: instants, byKind: arrived, first: start)
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

    /// What the sandbox received in `phase`, by kind: each push's occurrence id (its collapse id)
    /// and arrival time.
    static func collect(_ admin: HTTPConnection, phase: String) throws -> [Kind: [(id: String, at: Double)]] {
        var arrivals: [Kind: [(id: String, at: Double)]] = [:]
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
                    guard id.hasPrefix(phase + "-") else { continue }
                    arrivals[type == "liveactivity" ? .activity : .alert, default: []].append((id, at.timeIntervalSince1970))
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
}
