import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// Runs the admin API's Hummingbird application in a service group of its own, so the gateway
/// can start it, learn its port, and stop it gracefully like the HTTP/2 server, instead of
/// handing the process over to it.
final class SandboxAdminServer: Sendable {
    private struct Running: Sendable {
        let group: ServiceGroup
        let task: Task<Void, any Error>
    }

    private let running = Mutex<Running?>(nil)

    /// Starts listening and returns the bound port, or throws what stopped the server starting.
    func start(host: String, port: Int, router: Router<BasicRequestContext>, logger: Logger) async throws -> Int {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "herald-sandbox"),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        running.withLock { $0 = Running(group: group, task: task) }
        var iterator = ports.makeAsyncIterator()
        if let bound = await iterator.next() { return bound }
        // The stream finished without a port: the application stopped before it was listening.
        running.withLock { $0 = nil }
        try await task.value
        throw SandboxError.adminServerFailed("the admin server stopped before it started listening")
    }

    /// A graceful shutdown lets open admin requests finish; cancelling would log them as errors.
    func shutdown() async {
        guard let current = running.withLock({ current -> Running? in
            defer { current = nil }
            return current
        }) else { return }
        await current.group.triggerGracefulShutdown()
        _ = await current.task.result
    }
}
