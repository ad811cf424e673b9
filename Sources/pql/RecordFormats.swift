import Foundation
import PQL
import PQLStore

/// `--format` for the subcommands that print records (`pql query`, `pql filter`): the
/// REPL's renderer, writing to standard output with no terminal styling and no column left out.
extension OutputFormat {
    var plainRenderer: ResultRenderer { ResultRenderer(format: self, width: nil, color: false) }
}

extension FilterCommand {
    /// The matches of `document` in `format`: JSON and JSON Lines keep each element's text as
    /// it was; the other formats have a column per key (keys in the order they first appear
    /// in the text, as the REPL lists a file's keys) and a `value` column for elements that
    /// are not objects.
    static func render(_ matches: [Int], of document: JSONDocument, as format: OutputFormat) -> String {
        switch format {
        case .jsonl: return matches.map { document.text(of: $0) + "\n" }.joined()
        case .json: return matches.isEmpty ? "[]\n" : "[\n" + matches.map { "  " + document.text(of: $0) }.joined(separator: ",\n") + "\n]\n"
        case .table, .box, .csv, .tsv, .markdown:
            var columns: [String] = [], seen: Set<String> = []
            var bare = false
            for i in matches {
                if case .dictionary(let d) = document.values[i] {
                    // Only an element with a key not seen yet needs its text read again for the order.
                    guard d.keys.contains(where: { !seen.contains($0) }) else { continue }
                    for k in document.keys(of: i) + d.keys.sorted() where d[k] != nil && seen.insert(k).inserted { columns.append(k) }
                } else {
                    bare = true
                }
            }
            if bare { columns.append(seen.contains("value") ? "(value)" : "value") }
            let rows = matches.map { i -> [PredicateValue] in
                if case .dictionary(let d) = document.values[i] { return columns.map { d[$0] ?? .null } }
                return columns.dropLast().map { _ in PredicateValue.null } + [document.values[i]]
            }
            return format.plainRenderer.render(columns: columns, rows: rows).text
        }
    }
}

extension QueryCommand {
    /// The entity's attribute names, for the header of a result with no rows.
    static func attributeNames(_ store: PredicateStore, _ entity: String) -> [String] {
        guard let e = try? store.model.entity(named: entity) else { return [] }
        return store.model.allAttributes(e).map(\.name)
    }
}
