import Synchronization

/// Cancels batches handed to connections, including ones handed over after the cancel arrived
/// (they are cancelled as they are added). One per waiting caller, not per request.
///
/// ```swift
/// let cancellation = HTTP2Cancellation()
/// await withTaskCancellationHandler {
///     cancellation.add(connection.send(requests, timeout: limit) { results in ... })
/// } onCancel: {
///     cancellation.cancel()
/// }
/// ```
public final class HTTP2Cancellation: Sendable {
    private let state = Mutex<(cancels: [@Sendable () -> Void], cancelled: Bool)>(([], false))

    public init() {}

    /// Registers how to cancel one batch; runs it at once if cancellation already happened.
    public func add(_ cancel: @escaping @Sendable () -> Void) {
        let cancelledAlready = state.withLock { state -> Bool in
            if !state.cancelled { state.cancels.append(cancel) }
            return state.cancelled
        }
        if cancelledAlready { cancel() }
    }

    /// Cancels every batch added so far and every one added later.
    public func cancel() {
        let cancels = state.withLock { state -> [@Sendable () -> Void] in
            state.cancelled = true
            defer { state.cancels.removeAll() }
            return state.cancels
        }
        for cancel in cancels { cancel() }
    }
}
