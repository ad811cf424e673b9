import Foundation
import PQL

/// Rows as the REPL prints them: an aligned table, JSON Lines or CSV.
enum OutputFormat: String, CaseIterable {
    case table, json, csv
}

struct ResultRenderer {
    var format: OutputFormat
    /// The terminal's width; nil when printing to a pipe (no columns are dropped).
    var width: Int?
    /// ANSI styling (a dim NULL, a bold header) on a terminal.
    var color: Bool
    /// No cell is wider than this in a table.
    var maxCellWidth = 32

    /// The text for `rows` (values in `columns` order), and the columns left out to fit.
    func render(columns: [String], rows: [[PredicateValue]]) -> (text: String, hidden: [String]) {
        switch format {
        case .json:
            return (rows.map { row in
                var d: [String: PredicateValue] = [:]
                for (c, v) in zip(columns, row) { d[c] = v }
                return PredicateValue.dictionary(d).jsonText(keyOrder: columns) + "\n"
            }.joined(), [])
        case .csv:
            var out = columns.map(csvField).joined(separator: ",") + "\n"
            for row in rows {
                out += row.map { $0.isNull ? "" : csvField(CellText.csvText($0)) }.joined(separator: ",") + "\n"
            }
            return (out, [])
        case .table:
            return table(columns: columns, rows: rows)
        }
    }

    private func csvField(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    private func table(columns: [String], rows: [[PredicateValue]]) -> (text: String, hidden: [String]) {
        let cells = rows.map { $0.map { CellText.truncated(CellText.text($0), to: maxCellWidth) } }
        var widths = columns.map { CellText.width(CellText.truncated($0, to: maxCellWidth)) }
        var numeric = [Bool](repeating: true, count: columns.count)
        var anyValue = [Bool](repeating: false, count: columns.count)
        for (r, row) in rows.enumerated() {
            for (i, v) in row.enumerated() where i < columns.count {
                widths[i] = max(widths[i], CellText.width(cells[r][i]))
                if !v.isNull {
                    anyValue[i] = true
                    if !CellText.isNumeric(v) { numeric[i] = false }
                }
            }
        }
        for i in columns.indices where !anyValue[i] { numeric[i] = false }
        // Columns left to right while they fit; the rest are named below the table.
        var shown = columns.count
        if let width {
            var used = 0
            for i in columns.indices {
                let w = widths[i] + (i == 0 ? 0 : 2)
                if used + w > width && i > 0 { shown = i; break }
                used += w
            }
        }
        func pad(_ s: String, _ i: Int) -> String {
            let gap = String(repeating: " ", count: max(0, widths[i] - CellText.width(s)))
            return numeric[i] ? gap + s : s + gap
        }
        var out = ""
        let header = (0..<shown).map { pad(CellText.truncated(columns[$0], to: maxCellWidth), $0) }.joined(separator: "  ").trimmingTrailingSpaces()
        out += (color ? "\u{1B}[1m" + header + "\u{1B}[0m" : header) + "\n"
        out += (0..<shown).map { String(repeating: "-", count: widths[$0]) }.joined(separator: "  ") + "\n"
        for (r, row) in rows.enumerated() {
            var line = ""
            for i in 0..<shown {
                if i > 0 { line += "  " }
                let text = pad(cells[r][i], i)
                line += color && row[i].isNull ? "\u{1B}[2m" + text + "\u{1B}[0m" : text
            }
            out += line.trimmingTrailingSpaces() + "\n"
        }
        return (out, Array(columns[shown...]))
    }
}

extension CellText {
    /// CSV wants the full value, not the table's visible symbols.
    static func csvText(_ v: PredicateValue) -> String {
        if case .string(let s) = v { return s }
        return text(v)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
