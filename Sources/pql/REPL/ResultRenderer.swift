import ArgumentParser
import Foundation
import PQL

/// How records are printed, in the REPL (`.format`) and by `pql query` and `pql filter`
/// (`--format`): one set, one renderer.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    /// Aligned columns under a dashed rule (numbers right).
    case table
    /// The same, drawn with box characters.
    case box
    /// RFC 4180: a header line, fields quoted when they hold `,`, `"` or a line break.
    case csv
    /// Tab-separated, with `\t`, `\n`, `\r` and `\\` escaped as PostgreSQL's COPY does.
    case tsv
    /// One JSON array of objects.
    case json
    /// JSON Lines: one object per line.
    case jsonl
    /// A GitHub-flavoured Markdown table.
    case markdown

    /// Table and box need every row before the first line (for the widths); the others stream.
    var needsAllRows: Bool { self == .table || self == .box }

    /// The names, for messages: `table, box, csv, …`.
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Renders records (values in `columns` order) in an `OutputFormat`. `render` does a whole
/// result; `start`, `line` and `finish` stream the formats that can be streamed.
struct ResultRenderer {
    var format: OutputFormat
    /// The terminal's width; nil when printing to a pipe or a file (no columns are dropped).
    var width: Int?
    /// ANSI styling (a dim NULL, a bold header) on a terminal.
    var color: Bool
    /// The header line of table, box, csv and tsv (Markdown always has one: it needs it).
    var headers = true
    /// What a nil shows as; nil: the format's own (`NULL` in tables, empty in CSV, TSV, Markdown).
    var nullText: String? = nil
    /// No cell is wider than this in a table.
    var maxCellWidth = 32

    /// The text for `rows` (values in `columns` order), and the columns left out to fit.
    func render(columns: [String], rows: [[PredicateValue]]) -> (text: String, hidden: [String]) {
        switch format {
        case .table, .box:
            return table(columns: columns, rows: rows)
        case .csv, .tsv, .json, .jsonl, .markdown:
            var out = start(columns: columns)
            for (i, row) in rows.enumerated() { out += line(row, columns: columns, index: i) }
            return (out + finish(count: rows.count), [])
        }
    }

    /// What comes before the first row of a streamed format (the header).
    func start(columns: [String]) -> String {
        switch format {
        case .csv: return headers ? columns.map(csvField).joined(separator: ",") + "\n" : ""
        case .tsv: return headers ? columns.map(tsvField).joined(separator: "\t") + "\n" : ""
        case .markdown:
            return "| " + columns.map(markdownCell).joined(separator: " | ") + " |\n"
                + "|" + String(repeating: "---|", count: columns.count) + "\n"
        case .json, .jsonl, .table, .box: return ""
        }
    }

    /// One row of a streamed format; `index` counts from 0 (JSON puts commas between rows).
    func line(_ row: [PredicateValue], columns: [String], index: Int) -> String {
        switch format {
        case .csv: return row.map { $0.isNull ? csvField(nullText ?? "") : csvField(CellText.csvText($0)) }.joined(separator: ",") + "\n"
        case .tsv: return row.map { $0.isNull ? tsvField(nullText ?? "") : tsvField(CellText.csvText($0)) }.joined(separator: "\t") + "\n"
        case .markdown:
            return "| " + row.map { markdownCell($0.isNull ? nullText ?? "" : CellText.csvText($0)) }.joined(separator: " | ") + " |\n"
        case .jsonl: return object(row, columns) + "\n"
        case .json: return (index == 0 ? "[\n  " : ",\n  ") + object(row, columns)
        case .table, .box: return ""
        }
    }

    /// What ends a streamed result of `count` rows.
    func finish(count: Int) -> String {
        format == .json ? (count == 0 ? "[]\n" : "\n]\n") : ""
    }

    private func object(_ row: [PredicateValue], _ columns: [String]) -> String {
        var d: [String: PredicateValue] = [:]
        for (c, v) in zip(columns, row) { d[c] = v }
        return PredicateValue.dictionary(d).jsonText(keyOrder: columns)
    }

    private func csvField(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    private func tsvField(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\\" }) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// A cell stays on its line and in its column: `|` escaped, line breaks as `<br>`, other
    /// control characters as symbols.
    private func markdownCell(_ s: String) -> String {
        let lines = s.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        return lines.map { CellText.visible(String($0)).replacingOccurrences(of: "|", with: "\\|") }.joined(separator: "<br>")
    }

    private func table(columns names: [String], rows: [[PredicateValue]]) -> (text: String, hidden: [String]) {
        // Column names come from the file (a foreign SQLite file's columns): shown as their
        // cells are, control characters as symbols.
        let columns = names.map { CellText.visible($0) }
        let boxed = format == .box
        let cells = rows.map { $0.map { v in CellText.truncated(v.isNull ? CellText.visible(nullText ?? "NULL") : CellText.text(v), to: maxCellWidth) } }
        var widths = columns.map { headers ? CellText.width(CellText.truncated($0, to: maxCellWidth)) : 0 }
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
            var used = boxed ? 4 : 0
            for i in columns.indices {
                let w = widths[i] + (i == 0 ? 0 : boxed ? 3 : 2)
                if used + w > width && i > 0 { shown = i; break }
                used += w
            }
        }
        func pad(_ s: String, _ i: Int) -> String {
            let gap = String(repeating: " ", count: max(0, widths[i] - CellText.width(s)))
            return numeric[i] ? gap + s : s + gap
        }
        func rule(_ left: String, _ middle: String, _ right: String) -> String {
            left + (0..<shown).map { String(repeating: "─", count: widths[$0] + 2) }.joined(separator: middle) + right + "\n"
        }
        func row(_ texts: [String], styled: (Int, String) -> String) -> String {
            if boxed { return "│ " + (0..<shown).map { styled($0, pad(texts[$0], $0)) }.joined(separator: " │ ") + " │\n" }
            return (0..<shown).map { styled($0, pad(texts[$0], $0)) }.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        var out = boxed ? rule("┌", "┬", "┐") : ""
        if headers {
            let names = (0..<shown).map { CellText.truncated(columns[$0], to: maxCellWidth) }
            out += row(names) { _, text in color ? "\u{1B}[1m" + text + "\u{1B}[0m" : text }
            out += boxed ? rule("├", "┼", "┤") : (0..<shown).map { String(repeating: "-", count: widths[$0]) }.joined(separator: "  ") + "\n"
        }
        for (r, values) in rows.enumerated() {
            out += row(cells[r]) { i, text in color && values[i].isNull ? "\u{1B}[2m" + text + "\u{1B}[0m" : text }
        }
        if boxed { out += rule("└", "┴", "┘") }
        return (out, Array(columns[shown...]))
    }
}

/// Streams records to an output in a format: rows are written as they come (64 KB at a time)
/// in the formats that allow it, gathered for table and box. `pql query` and `pql filter`
/// write through it; the REPL renders whole pages with `ResultRenderer`.
final class RecordWriter {
    private let renderer: ResultRenderer
    private let columns: [String]
    private let sink: (String) -> Void
    private var buffer = ""
    private var count = 0
    private var gathered: [[PredicateValue]] = []

    init(_ renderer: ResultRenderer, columns: [String], sink: @escaping (String) -> Void) {
        self.renderer = renderer
        self.columns = columns
        self.sink = sink
        buffer = renderer.format.needsAllRows ? "" : renderer.start(columns: columns)
    }

    /// Writes to standard output.
    convenience init(_ renderer: ResultRenderer, columns: [String]) {
        self.init(renderer, columns: columns) { Output.write($0) }
    }

    /// Writes a row; `columns` names its own values when a row has other keys than the first
    /// (records of sub-entities), for the formats that name keys on each row (JSON).
    func write(_ row: [PredicateValue], columns own: [String]? = nil) {
        if renderer.format.needsAllRows {
            gathered.append(row)
        } else {
            buffer += renderer.line(row, columns: own ?? columns, index: count)
            flushIfLarge()
        }
        count += 1
    }

    /// Writes a value as a row of its own in JSON and JSON Lines (an element of a data file
    /// that is not an object); the other formats take rows of columns (``write(_:columns:)``).
    func write(element: PredicateValue) {
        guard renderer.format == .json || renderer.format == .jsonl else { return write([element]) }
        buffer += (renderer.format == .jsonl ? "" : count == 0 ? "[\n  " : ",\n  ") + element.jsonText()
            + (renderer.format == .jsonl ? "\n" : "")
        count += 1
        flushIfLarge()
    }

    private func flushIfLarge() {
        guard buffer.utf8.count > 1 << 16 else { return }
        sink(buffer)
        buffer = ""
    }

    func finish() {
        if renderer.format.needsAllRows {
            buffer = renderer.render(columns: columns, rows: gathered).text
        } else {
            buffer += renderer.finish(count: count)
        }
        if !buffer.isEmpty { sink(buffer) }
        buffer = ""
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
