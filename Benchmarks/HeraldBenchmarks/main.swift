import Foundation

// herald-bench: the scheduler, push gateway and coalescer benchmarks. See Benchmarks/README.md;
// `run.sh` drives it.

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    progress("\(error)\n\(Options.usage)")
    exit(2)
}

do {
    switch options.command {
    case "all":
        for row in try await ArmingBenchmark.run(options) { row.emit() }
        for row in try await FiringBenchmark.run(options) { row.emit() }
    case "arming":
        for row in try await ArmingBenchmark.run(options) { row.emit() }
    case "firing":
        for row in try await FiringBenchmark.run(options) { row.emit() }
    case "sqlite-burst":
        for row in try await SQLiteBurstBenchmark.run(options) { row.emit() }
    case "arm-probe":
        try await ArmingProbe.main(options)
    case "slow-peer":
        for row in try await SlowPeerBenchmark.run(options) { row.emit() }
    case "cluster":
        for row in try await ClusterBenchmark.run(options) { row.emit() }
    case "postgres-schedule":
        for row in try await PostgresScheduleBenchmark.run(options) { row.emit() }
    case "postgres-xmin":
        for row in try await PostgresHeldXminBenchmark.run(options) { row.emit() }
    case "postgres-burst":
        for row in try await PostgresBurstBenchmark.run(options) { row.emit() }
    case "delivery-load":
        for row in try await DeliveryLoadBenchmark.run(options) { row.emit() }
    case "push":
        for row in try await PushBenchmark.run(options) { row.emit() }
    case "live-activities":
        for row in try await LiveActivityBenchmark.run(options) { row.emit() }
    case "channels":
        for row in try await ChannelBenchmark.run(options) { row.emit() }
    case "push-probe":
        try await PushProbe.main(options)
    case "coalesce":
        for row in try await CoalescerBenchmark.run(options) { row.emit() }
    case "coalesce-http":
        for row in try await CoalescerHTTPBenchmark.run(options) { row.emit() }
    case "schedule-floor":
        try await ScheduleFloorServer.serve(options)
    case "sandbox":
        try await SandboxProcess.serve(certificates: options.certificates)
    case "table":
        try ResultTable.print(rowsFile: options.rows)
    default:
        progress("unknown command '\(options.command)'\n\(Options.usage)")
        exit(2)
    }
} catch {
    progress("failed: \(error)")
    exit(1)
}
