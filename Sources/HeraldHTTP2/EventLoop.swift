import CEpoll
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

/// One thread running epoll over many channels plus a wake-up pipe. Other threads only ever
/// enqueue closures with `execute`; everything else happens on this thread, which is what lets
/// channels own sockets, SSL and nghttp2 objects without locks. Interest is level-triggered and
/// changed with `epoll_ctl` only when a channel's wishes change, so an iteration costs one
/// `epoll_wait` however many connections share the loop.
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
    private let epollFD: Int32
    private let confined = Confined()
    let name: String

    /// Loop-thread-only state; `@unchecked` because the thread confinement is the guarantee.
    private final class Confined: @unchecked Sendable {
        var channels: [ObjectIdentifier: any EventLoopChannel] = [:]
        var flushQueue: [any EventLoopChannel] = []
        /// What epoll watches: descriptor → its channel and the events asked for.
        var interest: [Int32: (channel: any EventLoopChannel, events: UInt32)] = [:]
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
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        if epollFD < 0 { fatalError("cannot create epoll instance: \(errnoString())") }
        var wake = epoll_event()
        wake.events = EPOLLIN.rawValue
        wake.data.fd = wakeFD
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &wake)
        let thread = Thread { [self] in self.run() }
        thread.name = name
        thread.start()
    }

    deinit {
        _ = Glibc.close(epollFD)
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
        for (fd, entry) in confined.interest where entry.channel === channel {
            confined.interest[fd] = nil
            var unused = epoll_event()
            _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &unused)  // fails harmlessly once closed
        }
    }

    /// A channel is about to close `descriptor` but stays registered (it will connect again):
    /// drop epoll's interest in it, so a new socket with the same number is added afresh.
    func forget(descriptor: Int32) {
        guard confined.interest.removeValue(forKey: descriptor) != nil else { return }
        var unused = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, descriptor, &unused)
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
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var drain = [UInt8](repeating: 0, count: 64)
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

            let timeout = updateInterest(now: MonotonicTime.now())
            let ready = epoll_wait(epollFD, &events, Int32(events.count), timeout)
            if ready < 0 && errno != EINTR {
                fatalError("epoll_wait failed on event loop \(name): \(errnoString())")
            }
            for index in 0..<max(0, Int(ready)) {
                let fd = events[index].data.fd, happened = events[index].events
                if fd == wakeFD {
                    while Glibc.read(wakeFD, &drain, drain.count) > 0 {}
                    continue
                }
                // A channel handled earlier in this batch may have closed this one.
                guard let channel = confined.interest[fd]?.channel, channel.fd == fd else { continue }
                // Input first: answers that arrived before a reset are processed before a write
                // can fail on it.
                if happened & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0 {
                    channel.readable()
                }
                if happened & EPOLLOUT.rawValue != 0, channel.fd == fd { channel.writable() }
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
        confined.interest.removeAll()
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

    /// Brings epoll's interest set in line with what each channel wants now, and returns the
    /// wait's timeout in milliseconds (-1: none) from the earliest channel deadline.
    private func updateInterest(now: MonotonicTime) -> Int32 {
        var timeout: Int32 = -1
        for channel in confined.channels.values {
            if let deadline = channel.nextDeadline {
                let ms = deadline.millisecondsFrom(now)
                if timeout < 0 || ms < timeout { timeout = ms }
            }
            let fd = channel.fd
            guard fd >= 0 else { continue }
            var wanted: UInt32 = 0
            if channel.wantsRead { wanted |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
            if channel.wantsWrite { wanted |= EPOLLOUT.rawValue }
            if let known = confined.interest[fd], known.channel === channel, known.events == wanted { continue }
            var event = epoll_event()
            event.events = wanted
            event.data.fd = fd
            // The descriptor may be new, or a closed one's number reused: fall back either way.
            let isKnown = confined.interest[fd] != nil
            if epoll_ctl(epollFD, isKnown ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event) != 0 {
                _ = epoll_ctl(epollFD, isKnown ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
            }
            confined.interest[fd] = (channel, wanted)
        }
        return timeout
    }

    private func flushScheduled() {
        while !confined.flushQueue.isEmpty {
            let queue = confined.flushQueue
            confined.flushQueue.removeAll(keepingCapacity: true)
            for channel in queue { channel.flushNow() }
        }
    }
}
