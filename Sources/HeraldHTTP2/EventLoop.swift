import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What an event loop drives: one descriptor plus callbacks. Implementations are confined to
/// their loop's thread, so they need no locking of their own.
protocol EventLoopChannel: AnyObject {
    var fd: Int32 { get }
    var wantsRead: Bool { get }
    var wantsWrite: Bool { get }
    /// The earliest time `tick` must run; nil when no timer is pending.
    var nextDeadline: MonotonicTime? { get }
    func readable()
    func writable()
    func tick(now: MonotonicTime)
    /// Called once, from `EventLoop.flushScheduled`, to batch writes produced by many tasks.
    func flushNow()
    /// The loop is stopping: release the descriptor and fail whatever is outstanding.
    func loopStopping()
}

/// One thread running poll(2) over a few channels plus a wake-up pipe. Other threads
/// only ever enqueue closures with `execute`; everything else happens on this thread, which is
/// what lets channels own sockets, SSL and nghttp2 objects without locks.
final class EventLoop: Sendable {
    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        var woken = false
        var stopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let inbox = Mutex(Inbox())
    /// Read end of the wake-up pipe (polled by the loop) and write end (poked by `execute`).
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private let confined = Confined()
    let name: String

    /// Loop-thread-only state; `@unchecked` because the thread confinement is the guarantee.
    private final class Confined: @unchecked Sendable {
        var channels: [ObjectIdentifier: any EventLoopChannel] = [:]
        var flushQueue: [any EventLoopChannel] = []
        var stopRequested = false
        var thread: pthread_t?
    }

    init(name: String) {
        self.name = name
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fatalError("cannot create wake-up pipe: \(errnoString())") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        self.wakeFD = fds[0]
        self.wakeWriteFD = fds[1]
        let thread = Thread { [self] in self.run() }
        thread.name = name
        thread.start()
    }

    deinit {
        _ = Glibc.close(wakeFD)
        _ = Glibc.close(wakeWriteFD)
    }

    /// Runs `work` on the loop thread. Returns false (and drops `work`) once the loop stopped,
    /// so callers can fail their request instead of waiting forever.
    @discardableResult
    func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        inbox.withLock { inbox in
            if inbox.stopped { return false }
            inbox.tasks.append(work)
            if !inbox.woken {
                inbox.woken = true
                var one: UInt8 = 1
                _ = Glibc.write(wakeWriteFD, &one, 1)
            }
            return true
        }
    }

    var inLoopThread: Bool {
        guard let thread = confined.thread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    // MARK: loop-thread API

    func register(_ channel: any EventLoopChannel) {
        precondition(inLoopThread)
        confined.channels[ObjectIdentifier(channel)] = channel
    }

    func deregister(_ channel: any EventLoopChannel) {
        confined.channels[ObjectIdentifier(channel)] = nil
    }

    /// Defers a channel's write until the current batch of tasks/events is processed.
    func scheduleFlush(_ channel: any EventLoopChannel) {
        confined.flushQueue.append(channel)
    }

    /// Asks the loop to stop after the current iteration (loop thread or not).
    func stop() {
        if !execute({ [confined] in confined.stopRequested = true }) { return }
    }

    /// Stops the loop and waits until its thread has released every channel.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyStopped = inbox.withLock { inbox -> Bool in
                if inbox.stopped { return true }
                inbox.stopWaiters.append(continuation)
                return false
            }
            if alreadyStopped { continuation.resume() } else { stop() }
        }
    }

    // MARK: the loop

    private func run() {
        confined.thread = pthread_self()
        var pollFDs: [pollfd] = []
        var polled: [any EventLoopChannel] = []
        while true {
            let tasks = inbox.withLock { inbox -> [@Sendable () -> Void] in
                inbox.woken = false
                let tasks = inbox.tasks
                inbox.tasks.removeAll(keepingCapacity: true)
                return tasks
            }
            for task in tasks { task() }
            flushScheduled()
            if confined.stopRequested { break }

            let now = MonotonicTime.now()
            var timeout: Int32 = -1
            pollFDs.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            pollFDs.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            for channel in confined.channels.values {
                if let deadline = channel.nextDeadline {
                    let ms = deadline.millisecondsFrom(now)
                    if timeout < 0 || ms < timeout { timeout = ms }
                }
                let fd = channel.fd
                guard fd >= 0 else { continue }
                var events: Int16 = 0
                if channel.wantsRead { events |= Int16(POLLIN) }
                if channel.wantsWrite { events |= Int16(POLLOUT) }
                pollFDs.append(pollfd(fd: fd, events: events, revents: 0))
                polled.append(channel)
            }
            let ready = poll(&pollFDs, nfds_t(pollFDs.count), timeout)
            if ready < 0 && errno != EINTR {
                fatalError("poll failed on event loop \(name): \(errnoString())")
            }
            if ready > 0 {
                if pollFDs[0].revents != 0 {
                    var drain = [UInt8](repeating: 0, count: 64)
                    while Glibc.read(wakeFD, &drain, drain.count) > 0 {}
                }
                for index in polled.indices {
                    let revents = pollFDs[index + 1].revents
                    if revents == 0 { continue }
                    let channel = polled[index]
                    // Input first: answers that arrived before a reset are processed before a write
                    // can fail on it.
                    if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { channel.readable() }
                    if revents & Int16(POLLOUT) != 0, channel.fd >= 0 { channel.writable() }
                }
            }
            let after = MonotonicTime.now()
            for channel in Array(confined.channels.values) {
                if let deadline = channel.nextDeadline, deadline <= after { channel.tick(now: after) }
            }
            flushScheduled()
        }
        for channel in Array(confined.channels.values) { channel.loopStopping() }
        confined.channels.removeAll()
        confined.flushQueue.removeAll()
        // Tasks that raced with the stop still run, so they can fail their callers cleanly.
        let (late, waiters) = inbox.withLock { inbox in
            inbox.stopped = true
            let result = (inbox.tasks, inbox.stopWaiters)
            inbox.tasks.removeAll()
            inbox.stopWaiters.removeAll()
            return result
        }
        for task in late { task() }
        for waiter in waiters { waiter.resume() }
    }

    private func flushScheduled() {
        while !confined.flushQueue.isEmpty {
            let queue = confined.flushQueue
            confined.flushQueue.removeAll(keepingCapacity: true)
            for channel in queue { channel.flushNow() }
        }
    }
}
