import Foundation
import HeraldDelivery
import HeraldStorage
import Logging
import ServiceLifecycle

/// Receives the live messages other nodes relay to this one and hands them to the streams this
/// node holds (several nodes on one store). A notification sent while the listener reconnects is
/// not lost: it stays in the device's inbox, and after reconnecting every stream here reads the
/// inbox again.
public struct LiveRelay: Service {
    private let directory: any StreamDirectory
    private let streams: LiveStreams
    private let logger: Logger
    private let health: LoopHealth

    public init(directory: any StreamDirectory, streams: LiveStreams, health: LoopHealth = LoopHealth(), logger: Logger) {
        self.directory = directory
        self.streams = streams
        self.health = health
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var reconnecting = false
            while !Task.isCancelled {
                // Listening for a second without an error counts as a success. Word sent while
                // the listener was down is gone: once listening again, every stream here reads
                // its inbox again.
                let settled = Task { [streams, health, reconnecting] in
                    guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                    health.succeeded(.relay)
                    if reconnecting { await streams.refreshAll() }
                }
                defer { settled.cancel() }
                reconnecting = true
                do {
                    try await directory.listenForRelayed { [streams] messages in await streams.receive(messages) }
                } catch is CancellationError {
                    return
                } catch {
                    settled.cancel()
                    health.failed(.relay)
                    logger.warning("listening for live messages from other nodes failed; reconnecting in 1 s",
                                   metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
