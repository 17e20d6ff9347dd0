import Foundation
import HeraldTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

// The status pages at /ui in a real browser: headless Chromium, driven over the DevTools protocol
// by scripts/browser/cdp_check.py (through run.sh, which makes its venv on first use). The steps
// are scripts/browser/status-pages.json, the same file a person runs by hand against `make run`.
// A missing browser or Python fails the test: it is never skipped.

private enum BrowserScenario {
    /// The repository, from this file's path.
    static let root = Repository.root
    static let runner = root.appendingPathComponent("scripts/browser/run.sh").path
    static let statusPages = root.appendingPathComponent("scripts/browser/status-pages.json").path
    static let outboxRetry = root.appendingPathComponent("scripts/browser/outbox-retry.json").path

    /// Makes the driver's venv, if this is its first use, before a test starts its clock: making
    /// it takes seconds (pip), which a scenario timed against a fire date cannot spare.
    static func prepare(in scratch: Scratch) async throws {
        let result = try await run(["--help"], in: scratch)
        try #require(result.succeeded, "the browser driver could not be prepared\n\(result)")
    }

    /// Runs `run.sh <arguments>` to the end, for at most `timeout` (the first run also makes the venv).
    static func run(_ arguments: [String], in scratch: Scratch, timeout: Duration = .seconds(240)) async throws -> CommandResult {
        let prefix = scratch.file("browser-\(UUID().uuidString)")
        let stdoutURL = prefix.appendingPathExtension("stdout")
        let stderrURL = prefix.appendingPathExtension("stderr")
        for url in [stdoutURL, stderrURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", runner] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        func output() -> (String, String) {
            ((try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "", (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
        }
        let finished = await pollUntil(timeout: timeout, interval: .milliseconds(50)) { !process.isRunning }
        guard finished else {
            // TERM lets the driver close Chromium and remove its profile; KILL if it does not.
            kill(process.processIdentifier, SIGTERM)
            _ = await pollUntil(timeout: .seconds(10), interval: .milliseconds(50)) { !process.isRunning }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            let (stdout, stderr) = output()
            throw EndToEndFailure("the browser scenario did not finish within \(timeout)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)")
        }
        let (stdout, stderr) = output()
        return CommandResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}

@Suite("Status pages in a real browser")
struct StatusPageBrowserTests {
    @Test("the status page shows a device's pending notification, then its delivery, live in a real browser",
          .timeLimit(.minutes(5)))
    func pendingThenDeliveredLive() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let app = WebhookE2E.app
                let device = "browser-phone"
                let notification = "browser-check"
                let token = WebhookE2E.token(0x0b70)
                let devicePath = "/v1/apps/\(app)/devices/\(device)"

                try await BrowserScenario.prepare(in: scratch)
                let registered = try await herald.api("PUT", devicePath, json: ["timeZone": "UTC", "token": token])
                try #require(registered.status == 201, "PUT device: \(registered.text)")
                // One push straight through /v1/push, so the overview's charts have something to draw.
                let pushed = try await herald.push(to: token)
                try #require(pushed.int("status") == 200, "POST /v1/push: \(pushed.raw)")

                // Every minute, twice, the first about 8 s from now: long enough for the browser to
                // open the page before it fires, and still pending afterwards, so the pending row
                // holds whenever the browser gets there. The scenario checks the delivery row is
                // absent at first, then appears without a reload.
                let firstFire = wholeSecond(after: 8)
                let series: [String: Any] = ["unit": "minute", "count": 2]
                let scheduled = try await herald.api("POST", devicePath + "/notifications", json: [
                    "id": notification, "fireDate": utc(firstFire), "repeat": series,
                    "alert": ["title": "Herald", "body": "Browser check"],
                ])
                try #require(scheduled.status == 201, "POST notification: \(scheduled.text)")

                let shots = scratch.url.appendingPathComponent("screenshots")
                let result = try await BrowserScenario.run([
                    BrowserScenario.statusPages,
                    "--base-url", herald.baseURL,
                    "--var", "app=\(app)",
                    "--var", "device=\(device)",
                    "--var", "notification=\(notification)",
                    "--var", "shots=\(shots.path)",
                    "--var", "authorization=Bearer \(WebhookE2E.adminKey)",
                ], in: scratch)
                if !result.succeeded {
                    // What the API says, to tell a page that shows the wrong thing from a server
                    // that did not do it.
                    let deliveries = try? await herald.api("GET", devicePath + "/deliveries")
                    Issue.record("""
                        the browser scenario failed (the first occurrence was due \(utc(firstFire)))
                        \(result)
                        --- GET \(devicePath)/deliveries: \(deliveries?.text ?? "(no answer)")
                        """)
                    return
                }
                print(result.stdout)

                let names = ["device-pending.png", "device-delivered.png", "overview.png"]
                for name in names {
                    let path = shots.appendingPathComponent(name).path
                    #expect(FileManager.default.fileExists(atPath: path), "no screenshot \(path)")
                    print("status page screenshot: \(path)")
                }
                // Set by hand to refresh the pictures in docs/.
                if let directory = ProcessInfo.processInfo.environment["HERALD_UI_SCREENSHOT_DIR"], !directory.isEmpty {
                    let target = URL(fileURLWithPath: directory)
                    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
                    for name in names {
                        let destination = target.appendingPathComponent(name)
                        try? FileManager.default.removeItem(at: destination)
                        try FileManager.default.copyItem(at: shots.appendingPathComponent(name), to: destination)
                        print("status page screenshot copied to \(destination.path)")
                    }
                }
            }
        }
    }

    @Test("A parked feedback message is retried from the outbox page's button and leaves the page once delivered",
          .timeLimit(.minutes(5)))
    func parkedMessageRetriedFromThePage() async throws {
        try await withScratch { scratch in
            // The receiver is down at first (nothing on its port): one failed try parks the message.
            let receiverPort = try unusedLoopbackPort()
            let yaml = SandboxedHerald.configuration(in: scratch, feedbackURL: "http://127.0.0.1:\(receiverPort)",
                                                     feedbackMaxAttempts: 1)
            try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                let dead = WebhookE2E.token(0x0b71)
                try await herald.unregister([dead])
                let refused = try await herald.push(to: dead)
                try #require(refused.int("status") == 410, "\(refused.raw)")
                let parked = await pollUntil(timeout: .seconds(20), interval: .milliseconds(200)) {
                    ((try? await herald.outbox(state: "parked")) ?? []).count == 1
                }
                try #require(parked, "the token.invalid message is parked")

                // The receiver comes back; the page's button sends the message again.
                try await withFeedbackListener(port: receiverPort, in: scratch) { listener in
                    let shots = scratch.url.appendingPathComponent("screenshots")
                    let result = try await BrowserScenario.run([
                        BrowserScenario.outboxRetry,
                        "--base-url", herald.baseURL,
                        "--var", "shots=\(shots.path)",
                        "--var", "authorization=Bearer \(WebhookE2E.adminKey)",
                    ], in: scratch)
                    #expect(result.succeeded, "\(result)")
                    #expect(listener.received.contains { $0.header("Herald-Event") == "token.invalid" },
                            "the receiver got the retried message")
                }
            }
        }
    }
}
