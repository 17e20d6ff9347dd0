import HeraldScheduler
import Testing

@Suite("Firing lateness buckets")
struct FiringLatenessTests {
    @Test("Each lateness lands in the first bucket whose bound it does not exceed; later than every bound, in the last")
    func buckets() {
        let lateness = FiringLateness()
        lateness.record([0, 0.01, 0.011, 0.9, 1, 59.9, 60, 61, 3_600])
        var expected = [Int](repeating: 0, count: FiringLateness.bounds.count + 1)
        for (bound, count) in [(0.01, 2), (0.05, 1), (1.0, 2), (60.0, 2)] {
            expected[FiringLateness.bounds.firstIndex(of: bound)!] = count
        }
        expected[FiringLateness.bounds.count] = 2
        #expect(lateness.buckets == expected)
    }
}
