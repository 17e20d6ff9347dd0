import HeraldAPI
import Synchronization
import Testing

@Suite("Request deadlines: one timer for the requests in flight")
struct RequestDeadlinesTests {
    @Test("A request disarmed in time never expires; one still armed past its timeout expires, within a tick")
    func expiresOnlyPastTheTimeout() async throws {
        let deadlines = RequestDeadlines(timeout: .milliseconds(200))
        let expired = Mutex<[String]>([])
        let quick = deadlines.arm { expired.withLock { $0.append("quick") } }
        let slow = deadlines.arm { expired.withLock { $0.append("slow") } }
        #expect(deadlines.disarm(quick), "disarmed before its deadline")
        try await Task.sleep(for: .milliseconds(150))
        #expect(expired.withLock { $0 }.isEmpty, "nothing expires before the timeout")
        try await Task.sleep(for: .milliseconds(400))
        #expect(expired.withLock { $0 } == ["slow"])
        #expect(!deadlines.disarm(slow), "an expired deadline says so when disarmed")
    }

    @Test("Deadlines armed after the timer stopped (nothing in flight) still expire")
    func timerRestarts() async throws {
        let deadlines = RequestDeadlines(timeout: .milliseconds(50))
        for round in 0..<3 {
            let fired = Mutex(false)
            let armed = deadlines.arm { fired.withLock { $0 = true } }
            try await Task.sleep(for: .milliseconds(300))
            #expect(fired.withLock { $0 }, "round \(round)")
            #expect(!deadlines.disarm(armed))
        }
    }
}
