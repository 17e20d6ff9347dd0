import Foundation
import HeraldStorage
import Logging
import ServiceLifecycle

/// Receives the live messages other nodes relay to this one and hands them to the streams this
/// node holds (several nodes on one store). A message sent while the listener reconnects is not
/// lost: a notification stays in the device's inbox, handed over at its next wake or reconnect.
public struct LiveRelay: Service {
    private let directory: any StreamDirectory
    private let streams: LiveStreams
    private let logger: Logger

    public init(directory: any StreamDirectory, streams: LiveStreams, logger: Logger) {
        self.directory = directory
        self.streams = streams
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await directory.listenForRelayed { [streams] messages in await streams.receive(messages) }
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("listening for live messages from other nodes failed; reconnecting in 1 s",
                                   metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
