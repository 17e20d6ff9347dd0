import Foundation
@testable import HeraldPostgres
import Synchronization
import Testing

// "Every store call has a deadline that covers the whole call": one watch keeps every call's
// deadline, and a call waits for its work or its deadline, whichever comes first.
@Suite("Store call deadlines")
struct CallDeadlineTests {
    let deadlines = CallDeadlines(tick: .milliseconds(10))

    @Test("Work that finishes first ends the wait with its result, and its registration is gone")
    func workFirst() async throws {
        let waiting = CallWait<Int>(deadlines: deadlines)
        let work = Task { waiting.finish(.success(7)) }
        guard case .finished(let result) = await waiting.wait(within: .seconds(5), cancelling: work) else {
            Issue.record("timed out")
            return
        }
        #expect(try result.get() == 7)
        deadlines.close()
    }

    @Test("Work that never finishes ends the wait at the deadline, and the caller may wait again")
    func deadlineFirst() async throws {
        let waiting = CallWait<Int>(deadlines: deadlines)
        let release = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let work = Task {
            await withCheckedContinuation { continuation in release.withLock { $0 = continuation } }
            waiting.finish(.success(1))
        }
        let started = ContinuousClock.now
        guard case .timedOut = await waiting.wait(within: .milliseconds(50), cancelling: work) else {
            Issue.record("finished without its work")
            return
        }
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        // Generous: under a loaded test run the watch may wait for a thread of the pool.
        #expect(ContinuousClock.now - started < .seconds(30))
        // Released now, the work's result is there for the next wait.
        while release.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(1)) }
        release.withLock { $0 }?.resume()
        guard case .finished(let result) = await waiting.wait(within: .seconds(5), cancelling: work) else {
            Issue.record("the second wait timed out")
            return
        }
        #expect(try result.get() == 1)
        deadlines.close()
    }

    @Test("Cancelling the caller cancels the work and ends the wait with a CancellationError")
    func cancellation() async throws {
        let waiting = CallWait<Int>(deadlines: deadlines)
        let work = Task {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        }
        let caller = Task { await waiting.wait(within: .seconds(30), cancelling: work) }
        try await Task.sleep(for: .milliseconds(20))
        caller.cancel()
        guard case .finished(.failure(let error)) = await caller.value else {
            Issue.record("the wait did not end with a failure")
            return
        }
        #expect(error is CancellationError)
        await work.value
        #expect(work.isCancelled)
        deadlines.close()
    }
}
