import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPush
import HeraldSandbox
import HeraldScheduler
import HeraldStorage
import Logging

/// Head-of-line blocking, measured: pushes due 1 s after a group whose APNs peer takes 3 s to
/// answer, through the real engine, dispatcher, device router and push gateway, into an
/// in-process sandbox. Lateness is when each push reached the sandbox minus its instant.
/// The reference is the same schedule with a peer that answers at once.
enum SlowPeerBenchmark {
    static let goalP99 = 0.100
    static let groupSize = 40

    static func run(_ options: Options) async throws -> [ResultRow] {
        progress("slow peer: reference run, peer answering at once")
        let reference = LatencySummary(try await lateness(peerLatency: 0, options: options))
        progress("slow peer: peer answering the first group in 3 s")
        let measured = LatencySummary(try await lateness(peerLatency: 3000, options: options))
        let label = "slow peer: \(groupSize) pushes due 1 s after \(groupSize) the peer answers in 3 s: lateness"
        return [
            ResultRow(benchmark: "\(label) p50 / max", measured: "\(Format.milliseconds(measured.p50)) / \(Format.milliseconds(measured.max))",
                      reference: "\(Format.milliseconds(reference.p50)) / \(Format.milliseconds(reference.max)) peer answering at once",
                      ratio: measured.p50 / reference.p50),
            ResultRow(benchmark: "\(label) p99", measured: Format.milliseconds(measured.p99),
                      reference: "\(Format.milliseconds(reference.p99)) peer answering at once", ratio: measured.p99 / reference.p99,
                      goal: "≤ 100 ms", met: measured.p99 <= goalP99),
        ]
    }

    /// Seconds between each second-group push's instant and its arrival at the sandbox.
    static func lateness(peerLatency: Int, options: Options) async throws -> [Double] {
        try await DeliveryRig.with(label: "slow-peer", options: options) { rig in
            let tokens = (0..<(2 * groupSize)).map { String(format: "%064x", 0xbe00 + $0) }
            for (index, token) in tokens.enumerated() {
                _ = try await rig.store.saveDevice(Device(appID: rig.app.id, id: "d\(index)", timeZone: "UTC", token: token),
                                                   now: Date())
            }
            let engine = rig.engine
            try await engine.load()
            let running = Task { try await engine.run() }
            defer { running.cancel() }

            // Open the connection and let the sandbox raise its stream limit, as in steady use.
            _ = await rig.gateway.send([try PushFixture.push(token: 0)], app: rig.app)
            rig.sandbox.faults = SandboxFaults(latencyMilliseconds: peerLatency)
            let first = Date().addingTimeInterval(1.5)
            let second = first.addingTimeInterval(1)
            var armed: [TimerEntry] = []
            for index in tokens.indices {
                let notification = rig.oneShot("n\(index)", deviceID: "d\(index)", at: index < groupSize ? first : second,
                                               body: "group \(index < groupSize ? 1 : 2)")
                if let entry = try await rig.store.schedule(notification, now: Date()).armed { armed.append(entry) }
            }
            await engine.arm(armed)
            let deadline = second.addingTimeInterval(15)
            let late = Array(tokens[groupSize...])
            while Date() < deadline, late.contains(where: { rig.sandbox.inbox(token: $0).isEmpty }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            return late.compactMap { rig.sandbox.inbox(token: $0).first.map { $0.receivedAt.timeIntervalSince(second) } }
        }
    }
}
