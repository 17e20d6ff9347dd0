import Foundation
import HeraldClient

/// Plain-text tables for the client commands' default output.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) {
        self.init(headers: headers)
    }

    /// For tables whose columns depend on the options (e.g. `--refresh`).
    init(headers: [String]) {
        self.headers = headers
    }

    mutating func add(_ cells: String...) {
        add(cells)
    }

    mutating func add(_ cells: [String]) {
        rows.append(cells)
    }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }
}

/// A value of the library's models as a table cell: "-" for none.
func cell(_ value: Any?) -> String {
    switch value {
    case nil, is NSNull: return "-"
    case let text as String: return text
    case let json as JSONValue:
        switch json {
        case .null: return "-"
        case .string(let text): return text
        default: return JSONOutput.text(json)
        }
    case let value as CustomStringConvertible: return value.description
    default: return "\(value!)"
    }
}
