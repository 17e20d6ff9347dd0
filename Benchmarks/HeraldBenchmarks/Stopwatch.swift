/// Elapsed time on the monotonic clock.
struct Stopwatch {
    private let start = ContinuousClock.now

    var seconds: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
