import Foundation

/// Push gateway throughput and latency over loopback TLS, with 1 and 4 connections, to the
/// sandbox and to nghttpd, against `h2load` sending the same requests to the same server (the HTTP/2
/// client ceiling on this machine); and the pushing process's memory over the run.
enum PushBenchmark {
    static let goalRatio = 0.9
    /// Throughput is judged on real runs only, not on `--smoke` sizes.
    static let goalMinimumPushes = 100_000
    /// "Memory flat over 1,000,000 pushes": growth from a tenth of the run to its end, per push.
    /// Anything retained per push is at least one 16-byte allocation, so 1 B/push tells a leak
    /// from allocator noise.
    static let goalMemorySize = 1_000_000
    static let goalGrowthPerPush = 1.0

    static func run(_ options: Options) async throws -> [ResultRow] {
        guard ChildProcess.hasTool("h2load") else {
            throw OptionsError("h2load is missing (Debian: apt-get install nghttp2-client)")
        }
        let certificates = URL(fileURLWithPath: options.certificates).standardizedFileURL.path
        var rows: [ResultRow] = []
        if options.pushTargets.contains("sandbox") {
            let sandbox = try SandboxProcess(herald: options.herald, certificates: certificates)
            progress("push: \(sandbox.kind) on 127.0.0.1:\(sandbox.port)")
            rows += try compare(target: "sandbox", port: sandbox.port, pid: sandbox.pid, certificates: certificates, options: options)
            sandbox.stop()
        }
        guard options.pushTargets.contains("nghttpd") else { return rows }
        guard ChildProcess.hasTool("nghttpd") else {
            throw OptionsError("nghttpd is missing (Debian: apt-get install nghttp2-server)")
        }
        let nghttpd = try NghttpdProcess(certificates: certificates, scratch: options.scratch)
        defer { nghttpd.stop() }
        progress("push: nghttpd on 127.0.0.1:\(nghttpd.port)")
        rows += try compare(target: "nghttpd", port: nghttpd.port, pid: nghttpd.pid, certificates: certificates, options: options)
        if let herald = options.herald.isEmpty ? nil : options.herald, FileManager.default.isExecutableFile(atPath: herald) {
            rows += try PushAPIBenchmark.run(herald: herald, nghttpdPort: nghttpd.port, certificates: certificates, options: options)
        } else {
            progress("push API: skipped, no herald binary (--herald)")
        }
        return rows
    }

    /// h2load, then Herald's client in a fresh process, against one server, for each connection count.
    static func compare(target: String, port: Int, pid: Int32, certificates: String, options: Options) throws -> [ResultRow] {
        var rows: [ResultRow] = []
        for connections in options.pushConnections {
            let streams = options.streams, pushes = options.pushes
            let shape = "\(connections) connection\(connections == 1 ? "" : "s") × \(streams) streams"
            progress("push → \(target): h2load, \(shape), \(Format.grouped(pushes)) requests")
            var cpu = CPUShare(sandbox: pid)
            let reference = try H2Load.run(port: port, certificates: certificates, connections: connections,
                                           streams: streams, requests: pushes, scratch: options.scratch)
            let referenceCPU = cpu.next(requests: pushes)
            progress(String(format: "push → %@: h2load %.0f req/s, %d of %d succeeded, p50 %.3f ms, p99 %.3f ms", target,
                            reference.rate, reference.succeeded, reference.requests,
                            reference.latency.p50 * 1000, reference.latency.p99 * 1000))
            progress("push → \(target): herald APNsClient, \(shape), \(Format.grouped(pushes)) pushes (fresh process)")
            let herald = try PushProbe.Result(parsing: ChildProcess.runSelf([
                "push-probe", "--port", "\(port)", "--certs", certificates, "--connections", "\(connections)",
                "--streams", "\(streams)", "--pushes", "\(pushes)", "--push-timeout", "\(options.pushTimeout)",
            ]))
            let heraldCPU = cpu.next(requests: pushes)
            progress(String(format: "push → %@: CPU per request: h2load %.0f µs + server %.0f µs; herald %.0f µs + server %.0f µs", target,
                            referenceCPU.client * 1e6, referenceCPU.sandbox * 1e6, heraldCPU.client * 1e6, heraldCPU.sandbox * 1e6))
            progress(String(format: "push → %@: herald %.0f pushes/s, %d of %d succeeded, %d connection(s) open, p50 %.3f ms, p99 %.3f ms",
                            target, herald.rate, herald.succeeded, herald.pushes, herald.connections,
                            herald.latency.p50 * 1000, herald.latency.p99 * 1000))
            rows += self.rows(target: target, shape: shape, herald: herald, reference: reference, connections: connections,
                              heraldCPU: heraldCPU, referenceCPU: referenceCPU)
        }
        return rows
    }

    /// CPU seconds per request of the client (a child this process waits for) and of the
    /// sandbox, between two readings.
    struct CPUShare {
        let sandbox: Int32
        private var lastChildren = ProcessCPU.waitedForChildren()
        private var lastSandbox: Double

        init(sandbox: Int32) {
            self.sandbox = sandbox
            lastSandbox = ProcessCPU.seconds(pid: sandbox) ?? .nan
        }

        mutating func next(requests: Int) -> (client: Double, sandbox: Double) {
            let children = ProcessCPU.waitedForChildren(), server = ProcessCPU.seconds(pid: sandbox) ?? .nan
            defer { (lastChildren, lastSandbox) = (children, server) }
            return ((children - lastChildren) / Double(requests), (server - lastSandbox) / Double(requests))
        }
    }

    static func rows(target: String, shape: String, herald: PushProbe.Result, reference: H2Load.Result, connections: Int,
                     heraldCPU: (client: Double, sandbox: Double), referenceCPU: (client: Double, sandbox: Double)) -> [ResultRow] {
        func cpu(_ share: (client: Double, sandbox: Double)) -> String {
            String(format: "CPU/request: client %.0f µs, server %.0f µs", share.client * 1e6, share.sandbox * 1e6)
        }
        let label = "push → \(target) (TLS, loopback), \(shape), \(Format.count(herald.pushes)) pushes"
        let failures = herald.pushes - herald.succeeded
        let failureText = failures == 0 ? "0 failed"
            : "\(failures) failed: " + herald.failures.sorted { $0.value > $1.value }.prefix(3).map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        let h2Failures = reference.requests - reference.succeeded
        let judged = herald.pushes >= goalMinimumPushes
        let ratio = herald.rate / reference.rate
        let h2Label = "h2load -c\(connections) -t\(reference.threads), same requests"
        var rows = [
            ResultRow(benchmark: "\(label): throughput",
                      measured: "\(Format.rate(herald.rate, unit: "pushes/s")) (\(connections) APNsClient × 1 connection; \(failureText); \(cpu(heraldCPU)))",
                      reference: "\(Format.rate(reference.rate, unit: "req/s")) \(h2Label) (\(h2Failures) failed\(h2Failures > 0 ? ", see README" : ""); \(cpu(referenceCPU)))",
                      ratio: ratio, goal: "≥ 0.90× h2load",
                      met: judged ? (ratio >= goalRatio && failures == 0) : nil),
            ResultRow(benchmark: "\(label): latency p50",
                      measured: Format.milliseconds(herald.latency.p50),
                      reference: "\(Format.milliseconds(reference.latency.p50)) h2load",
                      ratio: herald.latency.p50 / reference.latency.p50),
            ResultRow(benchmark: "\(label): latency p99",
                      measured: Format.milliseconds(herald.latency.p99),
                      reference: "\(Format.milliseconds(reference.latency.p99)) h2load",
                      ratio: herald.latency.p99 / reference.latency.p99),
        ]
        let tenth = max(1, herald.pushes / 10)
        let growth = Double(herald.residentAtEnd - herald.residentAtTenth)
        let perPush = growth / Double(herald.pushes - tenth)
        rows.append(ResultRow(
            benchmark: "\(label): pushing process RSS at the end vs after the first tenth",
            measured: "\(Format.megabytes(Double(herald.residentAtEnd))) (\(Format.signedMegabytes(growth)), "
                + String(format: "%.2f B/push)", perPush),
            reference: "\(Format.megabytes(Double(herald.residentAtTenth))) after \(Format.count(tenth)) pushes",
            ratio: Double(herald.residentAtEnd) / Double(herald.residentAtTenth),
            goal: "flat over 1M (≤ 1 B/push)",
            met: herald.pushes >= goalMemorySize ? perPush <= goalGrowthPerPush : nil))
        return rows
    }
}
