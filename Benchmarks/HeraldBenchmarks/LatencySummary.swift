/// Percentiles of a set of samples, in seconds, by nearest rank.
struct LatencySummary: Sendable {
    var count: Int
    var p50: Double
    var p99: Double
    var max: Double
    var min: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func rank(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        p50 = rank(0.50)
        p99 = rank(0.99)
        max = sorted.last ?? .nan
        min = sorted.first ?? .nan
    }
}
