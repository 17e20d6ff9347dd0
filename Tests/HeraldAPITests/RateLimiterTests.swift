import HeraldAPI
import Testing

@Suite("Rate limiter: a token bucket per key")
struct RateLimiterTests {
    @Test("A key past its burst is told how long to wait, refused until then, and allowed once that wait has passed")
    func refusedUntilTheWaitHasPassed() throws {
        let limiter = RateLimiter(ratePerSecond: 0.02, burst: 3)
        let start = ContinuousClock.now
        for _ in 0..<3 { #expect(limiter.acquire("alarm", now: start) == nil) }
        let wait = try #require(limiter.acquire("alarm", now: start), "the fourth request in a burst of 3 is refused")
        #expect(wait == .seconds(50), "at one token every 50 s, the next is 50 s away")
        #expect(limiter.acquire("alarm", now: start + wait) == nil, "allowed once the wait has passed")

        let early = RateLimiter(ratePerSecond: 0.02, burst: 1)
        #expect(early.acquire("alarm", now: start) == nil)
        #expect(early.acquire("alarm", now: start + .seconds(49)) != nil, "refused a second before the wait ends")
    }

    @Test("Buckets are per key: one key's burst leaves another's full")
    func bucketsArePerKey() {
        let limiter = RateLimiter(ratePerSecond: 1, burst: 1)
        let now = ContinuousClock.now
        #expect(limiter.acquire("alarm", now: now) == nil)
        #expect(limiter.acquire("alarm", now: now) != nil)
        #expect(limiter.acquire("admin", now: now) == nil)
    }
}
