import Foundation

/// Prints collected ROW lines as one markdown table, columns padded to their widest cell.
enum ResultTable {
    static let header = ["benchmark", "measured", "reference", "ratio", "goal", "met?"]

    static func print(rowsFile: String) throws {
        let text = try String(contentsOfFile: rowsFile, encoding: .utf8)
        let rows = text.split(separator: "\n").compactMap { line -> [String]? in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cells.first == "ROW", cells.count == header.count + 1 else { return nil }
            return Array(cells.dropFirst())
        }
        Swift.print(render([header] + rows))
    }

    static func render(_ table: [[String]]) -> String {
        let widths = (0..<header.count).map { column in table.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }
                .joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([line(table[0]), rule] + table.dropFirst().map(line)).joined(separator: "\n")
    }
}
