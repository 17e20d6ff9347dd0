import Testing
@testable import HeraldHTTP2

/// The client connection's rules, driven without sockets: each test feeds events with explicit
/// times and checks the actions the machine returns.
@Suite("HTTP/2 client connection state machine")
struct HTTP2ClientStateMachineTests {
    final class Request: CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }
        var description: String { name }
    }

    typealias Machine = HTTP2ClientStateMachine<Request>

    let start = MonotonicTime(nanoseconds: 1_000_000_000)

    func at(_ milliseconds: Int) -> MonotonicTime { start + .milliseconds(milliseconds) }

    func machine(maxQueued: Int = 100, ping: Duration? = nil) -> Machine {
        Machine(configuration: .init(maxQueuedRequests: maxQueued, pingInterval: ping, pingTimeout: .milliseconds(500),
                                     connectTimeout: .seconds(5)),
                now: start)
    }

    /// Opens admitted requests with ids 1, 3, 5… as a client's streams are numbered.
    final class Opener {
        var next: Int32 = 1
        var opened: [String: HTTP2StreamID] = [:]
        func open(_ request: Request) -> Result<HTTP2StreamID, HTTP2Error> {
            defer { next += 2 }
            opened[request.name] = HTTP2StreamID(next)
            return .success(HTTP2StreamID(next))
        }
    }

    func connected(_ machine: inout Machine, limit: Int = 100) {
        let justConnected = machine.settingsReceived(maxConcurrentStreams: limit)
        #expect(justConnected)
    }

    /// A connected machine with one sent stream per name (ids 1, 3, 5…).
    func sending(_ names: [String], limit: Int = 100) -> Machine {
        var machine = machine()
        let opener = Opener()
        connected(&machine, limit: limit)
        for name in names { _ = machine.enqueue(Request(name), deadline: at(10_000)) }
        _ = machine.admit(opener.open)
        for index in names.indices { machine.headersSent(HTTP2StreamID(Int32(2 * index + 1))) }
        return machine
    }

    /// The failures among `actions`, by request name.
    func failures(_ actions: [Machine.Action]) -> [String: HTTP2Error] {
        var result: [String: HTTP2Error] = [:]
        for case .fail(let request, let error) in actions { result[request.name] = error }
        return result
    }

    func isNotProcessed(_ error: HTTP2Error?) -> Bool {
        if case .notProcessed = error { return true }
        return false
    }

    @Test("nothing is opened before the peer's SETTINGS; then one stream at a time until the limit rises")
    func admissionFollowsPeerLimit() {
        var machine = machine()
        let opener = Opener()
        let requests = (0..<3).map { Request("r\($0)") }
        for request in requests {
            let refusal = machine.enqueue(request, deadline: at(10_000))
            #expect(refusal == nil)
        }
        let openedWhileConnecting = machine.admit(opener.open)
        #expect(openedWhileConnecting.isEmpty)
        #expect(opener.opened.isEmpty, "still connecting")
        connected(&machine, limit: 1)
        _ = machine.admit(opener.open)
        #expect(opener.opened.keys.sorted() == ["r0"])
        #expect(machine.queuedRequests == 2)
        let connectedAgain = machine.settingsReceived(maxConcurrentStreams: 100)
        #expect(connectedAgain == false, "only the first SETTINGS connects")
        _ = machine.admit(opener.open)
        #expect(opener.opened.count == 3)
        #expect(machine.openStreams == 3 && machine.queuedRequests == 0)
    }

    @Test("requests beyond the queue limit are refused with queueFull; free streams do not count as waiting")
    func queueLimit() {
        var machine = machine(maxQueued: 2)
        connected(&machine, limit: 1)
        let first = machine.enqueue(Request("a"), deadline: at(1000))
        #expect(first == nil)
        let second = machine.enqueue(Request("b"), deadline: at(1000))
        #expect(second == nil)
        let third = machine.enqueue(Request("c"), deadline: at(1000))
        #expect(third == nil, "one of the three takes the free stream")
        let fourth = machine.enqueue(Request("d"), deadline: at(1000))
        #expect(fourth == .queueFull(limit: 2))
    }

    @Test("GOAWAY: queued requests and streams above last-stream-id are not processed; streams at or below it still complete")
    func goAwaySplitsStreams() {
        var machine = sending(["s1", "s3", "s5"])
        let later = Request("queued")
        // The queue only fills once no stream is free.
        _ = machine.settingsReceived(maxConcurrentStreams: 3)
        _ = machine.enqueue(later, deadline: at(10_000))

        let failed = failures(machine.goAwayReceived(lastStreamID: HTTP2StreamID(3), errorCode: 0))
        #expect(failed.keys.sorted() == ["queued", "s5"])
        #expect(failed.values.allSatisfy(isNotProcessed))
        let answeredFirst = machine.responseEnded(HTTP2StreamID(1))
        #expect(answeredFirst?.name == "s1", "at or below last-stream-id: answered")
        let answeredSecond = machine.responseEnded(HTTP2StreamID(3))
        #expect(answeredSecond?.name == "s3")
        let afterGoAway = machine.enqueue(Request("new"), deadline: at(10_000))
        #expect(isNotProcessed(afterGoAway), "no new work after GOAWAY")
        #expect(!machine.isUsable)
    }

    @Test("a second GOAWAY cannot raise the last-stream-id the first one promised")
    func goAwayOnlyLowers() {
        var machine = sending(["s1", "s3", "s5"])
        _ = machine.goAwayReceived(lastStreamID: HTTP2StreamID(1), errorCode: 0)
        #expect(machine.lastStreamIDPromised == HTTP2StreamID(1))
        _ = machine.goAwayReceived(lastStreamID: HTTP2StreamID(5), errorCode: 0)
        #expect(machine.lastStreamIDPromised == HTTP2StreamID(1))
    }

    @Test("deadlines: a queued request ends not processed, a sent one as timeout with its stream reset")
    func deadlines() {
        var machine = machine()
        let opener = Opener()
        connected(&machine, limit: 1)
        _ = machine.enqueue(Request("sent"), deadline: at(100))
        _ = machine.enqueue(Request("queued"), deadline: at(200))
        _ = machine.admit(opener.open)
        machine.headersSent(HTTP2StreamID(1))
        #expect(machine.nextDeadline == at(100))
        let early = machine.tick(now: at(50))
        #expect(early.isEmpty)
        let first = machine.tick(now: at(100))
        #expect(failures(first) == ["sent": .timeout])
        #expect(first.contains { if case .reset(HTTP2StreamID(1)) = $0 { return true } else { return false } })
        #expect(machine.nextDeadline == at(200))
        let second = failures(machine.tick(now: at(200)))
        #expect(isNotProcessed(second["queued"]), "never sent: safe to send elsewhere")
        #expect(machine.nextDeadline == nil)
    }

    @Test("an open stream whose HEADERS were never written ends not processed at its deadline")
    func unsentStreamDeadline() {
        var machine = machine()
        let opener = Opener()
        connected(&machine)
        _ = machine.enqueue(Request("unsent"), deadline: at(100))
        _ = machine.admit(opener.open)
        let unsentExpiry = machine.tick(now: at(100))
        #expect(isNotProcessed(failures(unsentExpiry)["unsent"]))
    }

    @Test("PING after a quiet interval; the connection closes when it is not acknowledged in time")
    func pingKeepsWatch() {
        var machine = machine(ping: .seconds(1))
        connected(&machine)
        machine.received(now: at(0))
        #expect(machine.nextDeadline == at(1000))
        let first = machine.tick(now: at(1000))
        #expect(first.count == 1 && { if case .sendPing = first[0] { return true } else { return false } }())
        machine.pingAcknowledged()
        machine.received(now: at(1100))
        #expect(machine.nextDeadline == at(2100), "an acknowledged PING waits for the next quiet interval")
        _ = machine.tick(now: at(2100))
        let unanswered = machine.tick(now: at(2600))
        #expect(unanswered.contains { if case .close(.connectionClosed) = $0 { return true } else { return false } })
    }

    @Test("closing ends every request by what the server can have seen")
    func closeClassifies() {
        var machine = machine()
        let opener = Opener()
        connected(&machine, limit: 3)
        for name in ["sent", "unsent", "aboveGoAway", "queued"] { _ = machine.enqueue(Request(name), deadline: at(10_000)) }
        _ = machine.admit(opener.open)
        machine.headersSent(HTTP2StreamID(1))
        machine.headersSent(HTTP2StreamID(5))
        // "queued" is still waiting: GOAWAY fails it before the close does.
        let goAway = failures(machine.goAwayReceived(lastStreamID: HTTP2StreamID(3), errorCode: 0))
        #expect(goAway.keys.sorted() == ["aboveGoAway", "queued"])
        let closed = failures(machine.closed(.connectionClosed("reset by peer")))
        #expect(closed["sent"] == .connectionClosed("reset by peer"), "it may have been processed")
        #expect(isNotProcessed(closed["unsent"]))
        let closedAgain = machine.closed(.connectionClosed("again"))
        #expect(closedAgain.isEmpty, "a request ends once")
        let afterClose = machine.enqueue(Request("late"), deadline: at(10_000))
        #expect(isNotProcessed(afterClose))
    }

    @Test("stream resets: REFUSED_STREAM is not processed, other codes are streamReset, a bare close is a protocol error")
    func streamClosures() {
        var machine = sending(["refused", "cancelled", "bare"])
        guard case .fail(_, let refused) = machine.streamClosed(HTTP2StreamID(1), errorCode: HTTP2ErrorCode.refusedStream),
              case .fail(_, let reset) = machine.streamClosed(HTTP2StreamID(3), errorCode: HTTP2ErrorCode.cancel),
              case .fail(_, let bare) = machine.streamClosed(HTTP2StreamID(5), errorCode: 0) else {
            Issue.record("every closed stream must fail")
            return
        }
        #expect(isNotProcessed(refused))
        #expect(reset == .streamReset(HTTP2ErrorCode.cancel))
        if case .protocolError = bare {} else { Issue.record("expected protocolError, got \(bare)") }
    }

    @Test("a response ends its request once: the stream's close afterwards changes nothing")
    func responseEndsOnce() {
        var machine = machine()
        let opener = Opener()
        connected(&machine)
        _ = machine.enqueue(Request("one"), deadline: at(10_000))
        _ = machine.admit(opener.open)
        machine.headersSent(HTTP2StreamID(1))
        let answered = machine.responseEnded(HTTP2StreamID(1))
        #expect(answered?.name == "one")
        let closedAfterAnswer = machine.streamClosed(HTTP2StreamID(1), errorCode: 0)
        #expect(closedAfterAnswer == nil)
        #expect(machine.openStreams == 0)
    }

    @Test("cancelling: a queued request ends without touching the wire, an open one also resets its stream")
    func cancellation() {
        var machine = machine()
        let opener = Opener()
        connected(&machine, limit: 1)
        let open = Request("open"), queued = Request("queued")
        _ = machine.enqueue(open, deadline: at(10_000))
        _ = machine.enqueue(queued, deadline: at(10_000))
        _ = machine.admit(opener.open)
        let cancelQueued = machine.cancel(queued)
        #expect(failures(cancelQueued) == ["queued": .cancelled] && cancelQueued.count == 1)
        let cancelOpen = machine.cancel(open)
        #expect(failures(cancelOpen) == ["open": .cancelled])
        #expect(cancelOpen.contains { if case .reset(HTTP2StreamID(1)) = $0 { return true } else { return false } })
        let cancelledAgain = machine.cancel(open)
        #expect(cancelledAgain.isEmpty, "a request ends once")
    }

    @Test("no SETTINGS before the connect deadline closes the connection as connectFailed")
    func connectDeadline() {
        var machine = machine()
        #expect(machine.nextDeadline == at(5000))
        let actions = machine.tick(now: at(5000))
        #expect(actions.contains { if case .close(.connectFailed) = $0 { return true } else { return false } })
    }
}

extension HTTP2ClientStateMachine.Action: Equatable where Request: AnyObject {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.fail(let a, let e), .fail(let b, let f)): return a === b && e == f
        case (.reset(let a), .reset(let b)): return a == b
        case (.sendPing, .sendPing): return true
        case (.close(let e), .close(let f)): return e == f
        default: return false
        }
    }
}
