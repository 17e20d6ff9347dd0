import Foundation

/// Latencies in fixed memory: log-spaced buckets 1% wide from 1 µs to about 100 s, so recording
/// a million samples costs no more memory than recording ten (the push benchmark reads the
/// process's resident memory while it records). Percentiles are by nearest rank, to within 1%.
struct LatencyHistogram: Sendable {
    private static let floor = 1e-6
    private static let growth = 1.01
    private static let bucketCount = 1_860
    private static let logGrowth = Foundation.log(growth)

    private var buckets = [Int](repeating: 0, count: bucketCount)
    private(set) var count = 0
    private(set) var max = 0.0
    private(set) var sum = 0.0

    mutating func record(_ seconds: Double) {
        let index: Int
        if seconds <= Self.floor {
            index = 0
        } else {
            index = Swift.min(Self.bucketCount - 1, Int(Foundation.log(seconds / Self.floor) / Self.logGrowth) + 1)
        }
        buckets[index] += 1
        count += 1
        sum += seconds
        if seconds > max { max = seconds }
    }

    mutating func merge(_ other: LatencyHistogram) {
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        count += other.count
        sum += other.sum
        max = Swift.max(max, other.max)
    }

    var mean: Double { count > 0 ? sum / Double(count) : .nan }

    /// The sample at `fraction` (0.5 for p50), as its bucket's geometric middle.
    func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return .nan }
        let rank = Swift.max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (index, n) in buckets.enumerated() where n > 0 {
            seen += n
            if seen >= rank {
                if index == 0 { return Self.floor }
                return Swift.min(max, Self.floor * Foundation.pow(Self.growth, Double(index) - 0.5))
            }
        }
        return max
    }

    var p50: Double { percentile(0.50) }
    var p99: Double { percentile(0.99) }

    /// A compact text form, for a child process to hand its histogram to the parent.
    var encoded: String {
        var parts = ["\(count)", "\(max)", "\(sum)"]
        for (index, n) in buckets.enumerated() where n > 0 { parts.append("\(index):\(n)") }
        return parts.joined(separator: ",")
    }

    init() {}

    init?(encoded text: Substring) {
        let parts = text.split(separator: ",")
        guard parts.count >= 3, let count = Int(parts[0]), let max = Double(parts[1]), let sum = Double(parts[2]) else { return nil }
        self.count = count
        self.max = max
        self.sum = sum
        for part in parts.dropFirst(3) {
            let pair = part.split(separator: ":")
            guard pair.count == 2, let index = Int(pair[0]), let n = Int(pair[1]), buckets.indices.contains(index) else { return nil }
            buckets[index] = n
        }
    }
}
