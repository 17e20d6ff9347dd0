import Foundation
import HeraldPush

/// The status page's charts, drawn on the server as inline SVG (no script, no library).
enum StatusCharts {
    /// Each push outcome's colour, in stacking order (the outcomes' own order).
    static let outcomeColors: [(outcome: String, color: String)] = PushOutcome.Result.allCases.map { result in
        let color = switch result {
        case .accepted: "#2da44e"
        case .unregistered: "#bf8700"
        case .rejected: "#cf222e"
        case .invalid: "#8250df"
        case .failed: "#a40e26"
        case .timedOut: "#6e7781"
        }
        return (result.rawValue, color)
    }

    /// Each platform's colour, in stacking order.
    static let platformColors: [(platform: String, color: String)] = [("ios", "#0969da"), ("android", "#2da44e"), ("web", "#bc4c00")]

    /// Pushes per minute over the last hour, stacked by outcome.
    static func pushesPerMinute(_ minutes: [StatusReports.Overview.Minute]) -> String {
        stackedMinutes(minutes.map { ($0.minute, $0.counts) }, series: outcomeColors.map { ($0.outcome, $0.color) },
                       id: "pushes-per-minute", title: "Pushes per minute, by outcome (this node)", label: "pushes per minute by outcome")
    }

    /// Pushes per minute over the last hour, stacked by platform (APNs, FCM, Web Push).
    static func pushesPerMinuteByPlatform(_ minutes: [StatusReports.Overview.Minute]) -> String {
        stackedMinutes(minutes.map { ($0.minute, $0.platforms) }, series: platformColors.map { ($0.platform, $0.color) },
                       id: "pushes-by-platform", title: "Pushes per minute, by platform (this node)",
                       label: "pushes per minute by platform")
    }

    /// One bar per minute, stacked by `series` in order.
    private static func stackedMinutes(_ minutes: [(minute: String, counts: [String: Int])], series: [(name: String, color: String)],
                                       id: String, title: String, label ariaLabel: String) -> String {
        let (width, height, left, bottom) = (720.0, 170.0, 34.0, 18.0)
        let plotHeight = height - bottom - 8
        let peak = max(1, minutes.map { $0.counts.values.reduce(0, +) }.max() ?? 0)
        let step = (width - left) / Double(max(1, minutes.count))
        var bars = ""
        for (index, minute) in minutes.enumerated() {
            var top = height - bottom
            for (name, color) in series {
                guard let count = minute.counts[name], count > 0 else { continue }
                let barHeight = Double(count) / Double(peak) * plotHeight
                top -= barHeight
                bars += "<rect x=\"\(format(left + Double(index) * step + 1))\" y=\"\(format(top))\" width=\"\(format(max(1, step - 2)))\" "
                    + "height=\"\(format(barHeight))\" fill=\"\(color)\"><title>\(StatusPageLayout.html(minute.minute)): \(count) \(name)</title></rect>"
            }
        }
        let axis = "<line x1=\"\(format(left))\" y1=\"\(format(height - bottom))\" x2=\"\(format(width))\" y2=\"\(format(height - bottom))\" stroke=\"#8c959f\"/>"
            + label(x: left - 4, y: 14, "\(peak)", anchor: "end") + label(x: left - 4, y: height - bottom, "0", anchor: "end")
            + label(x: left, y: height - 4, "60 min ago", anchor: "start") + label(x: width, y: height - 4, "now", anchor: "end")
        let legend = series.map { "<span><i style=\"background:\($0.color)\"></i>\($0.name)</span>" }.joined()
        return "<div class=\"chart\"><h2>\(title)</h2>"
            + "<svg id=\"\(id)\" role=\"img\" aria-label=\"\(ariaLabel)\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">"
            + axis + bars + "</svg><div class=\"legend\">\(legend)</div></div>"
    }

    /// How late occurrences fired since start, one bar per bucket.
    static func latenessHistogram(_ buckets: [StatusReports.Overview.LatenessBucket]) -> String {
        let (width, height, bottom) = (560.0, 170.0, 18.0)
        let plotHeight = height - bottom - 22
        let peak = max(1, buckets.map(\.count).max() ?? 0)
        let step = width / Double(max(1, buckets.count))
        var bars = ""
        for (index, bucket) in buckets.enumerated() {
            let barHeight = Double(bucket.count) / Double(peak) * plotHeight
            let x = Double(index) * step
            let name = bucket.le.map { "≤" + seconds($0) } ?? ">" + seconds(buckets[max(0, index - 1)].le ?? 0)
            bars += "<rect x=\"\(format(x + 2))\" y=\"\(format(height - bottom - barHeight))\" width=\"\(format(step - 4))\" "
                + "height=\"\(format(barHeight))\" fill=\"#0969da\"><title>\(name): \(bucket.count)</title></rect>"
                + label(x: x + step / 2, y: height - 4, name, anchor: "middle")
                + (bucket.count > 0 ? label(x: x + step / 2, y: height - bottom - barHeight - 4, "\(bucket.count)", anchor: "middle") : "")
        }
        return "<div class=\"chart\"><h2>Firing lateness (occurrences since start)</h2>"
            + "<svg id=\"lateness-histogram\" role=\"img\" aria-label=\"firing lateness histogram\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">"
            + bars + "</svg></div>"
    }

    private static func label(x: Double, y: Double, _ text: String, anchor: String) -> String {
        "<text x=\"\(format(x))\" y=\"\(format(y))\" font-size=\"10\" fill=\"#57606a\" text-anchor=\"\(anchor)\">\(StatusPageLayout.html(text))</text>"
    }

    private static func seconds(_ value: Double) -> String {
        value < 1 ? "\(Int((value * 1000).rounded()))ms" : (value == value.rounded() ? "\(Int(value))s" : "\(value)s")
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
