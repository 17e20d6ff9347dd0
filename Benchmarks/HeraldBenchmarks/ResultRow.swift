import Foundation

/// One line of the results table: a measurement next to its reference from the same run.
///
/// `ratio` is always measured ÷ reference, so for times and bytes above 1 means "costlier than
/// the floor", and for throughputs below 1 means "slower than the floor".
struct ResultRow: Sendable {
    var benchmark: String
    var measured: String
    var reference: String
    var ratio: String
    var goal: String
    var met: String

    init(benchmark: String, measured: String, reference: String, ratio: Double?, goal: String = "—",
         met: Bool? = nil) {
        self.benchmark = benchmark
        self.measured = measured
        self.reference = reference
        self.ratio = ratio.map(Format.ratio) ?? "—"
        self.goal = goal
        self.met = met.map { $0 ? "yes" : "NO" } ?? "n/a"
    }

    /// The line `run.sh` collects: `ROW` and the six cells, tab-separated.
    var line: String {
        (["ROW", benchmark, measured, reference, ratio, goal, met]).joined(separator: "\t")
    }

    func emit() {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Number formatting shared by the rows.
enum Format {
    static func ratio(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        return value >= 100 ? String(format: "%.0f×", value) : String(format: "%.2f×", value)
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }

    static func milliseconds(_ seconds: Double) -> String { String(format: "%.3f ms", seconds * 1000) }

    static func bytes(_ value: Double) -> String { String(format: "%.1f B", value) }

    static func megabytes(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }

    /// "+1.2 MiB" or "−0.3 MiB".
    static func signedMegabytes(_ bytes: Double) -> String {
        (bytes < 0 ? "−" : "+") + megabytes(abs(bytes))
    }

    static func rate(_ perSecond: Double, unit: String) -> String {
        "\(grouped(Int(perSecond.rounded()))) \(unit)"
    }

    /// 1234567 → "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }

    /// Short size label: 1000000 → "1M", 100000 → "100k", 1500 → "1,500".
    static func count(_ value: Int) -> String {
        if value >= 1_000_000, value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1_000, value % 1_000 == 0 { return "\(value / 1_000)k" }
        return grouped(value)
    }
}

/// Progress for the person watching; kept off stdout, which carries only rows.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("herald-bench: \(message)\n".utf8))
}
