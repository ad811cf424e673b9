/// The one compiler-style rendering of PQL's errors: syntax errors, evaluation errors and the
/// store's errors all show the message, the position, the source line and a caret under the
/// text at fault, then notes and a hint.
///
/// Made for terminals: control characters of the input show as symbols (`␛`, `␇`…), never raw;
/// a long line is cut to the part around the caret, marked with `…`; lines may end in CRLF;
/// the caret stays under its text after tabs, combining marks and wide characters (CJK,
/// emoji), which take two terminal cells.
///
/// ```swift
/// let source = "名前 == 'x' AND agge > 3"
/// let range = SourceRange(offset: 18, length: 4, line: 1, column: 15)
/// print(CaretRenderer.render(message: "keypath 'agge' not found in entity Person",
///                            source: source, range: range, hint: "did you mean 'age'?"))
/// // error: keypath 'agge' not found in entity Person
/// //  --> line 1, column 15
/// //   |
/// // 1 | 名前 == 'x' AND agge > 3
/// //   |                 ^~~~
/// //   = hint: did you mean 'age'?
/// ```
public enum CaretRenderer {
    /// The rendering of `message` about `range` of `source`. Each of `notes` is a line of
    /// its own (`= expected …, found …`); the `hint`, when there is one, comes last. `label`
    /// starts the first line: `error`, or `warning` for a ``PredicateDiagnostic``.
    ///
    /// ```swift
    /// CaretRenderer.render(message: "m", source: "a ==\r\nb", range: SourceRange(offset: 6, length: 1, line: 2, column: 1),
    ///                      notes: ["in: b"])
    /// // "error: m\n --> line 2, column 1\n  |\n2 | b\n  | ^\n  = in: b"
    /// ```
    public static func render(message: String, source: String, range: SourceRange,
                              notes: [String] = [], hint: String? = nil, label: String = "error") -> String {
        // Lines end at "\n" bytes, as SourceRange counts them ("\r\n" is one Character, so
        // splitting the String would not split CRLF text); the "\r" is not shown.
        let lines = source.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var lineText = range.line >= 1 && range.line - 1 < lines.count
            ? String(decoding: lines[range.line - 1], as: UTF8.self) : ""
        if lineText.hasSuffix("\r") { lineText.removeLast() }
        let number = String(range.line)
        let gutter = String(repeating: " ", count: number.count)
        let split = lineText.index(lineText.startIndex, offsetBy: max(0, range.column - 1), limitedBy: lineText.endIndex)
            ?? lineText.endIndex
        let (head, tail) = TerminalText.window(before: lineText[..<split], after: lineText[split...])
        // Tabs keep their width in the caret line, wide characters take two blanks.
        let prefix = TerminalText.blanks(under: head)
        let width = min(caretCells(source: source, range: range), max(1, TerminalText.cells(tail)))
        var out = "\(label): \(TerminalText.visible(message))\n"
        out += "\(gutter)--> \(range)\n"
        out += "\(gutter) |\n"
        out += "\(number) | \(head)\(tail)\n"
        out += "\(gutter) | \(prefix)^\(String(repeating: "~", count: max(0, width - 1)))"
        for note in notes { out += "\n\(gutter) = \(TerminalText.visible(note))" }
        if let hint { out += "\n\(gutter) = hint: \(TerminalText.visible(hint))" }
        return out
    }

    /// The terminal cells the range covers on its first line, as shown (at least 1).
    private static func caretCells(source: String, range: SourceRange) -> Int {
        guard range.length > 0 else { return 1 }
        let utf8 = source.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: min(max(0, range.offset), utf8.count))
        let end = utf8.index(start, offsetBy: min(range.length, utf8.distance(from: start, to: utf8.endIndex)))
        let s = String(decoding: utf8[start..<end], as: UTF8.self)
        var firstLine = Substring(s.prefix { $0 != "\n" && $0 != "\r\n" })
        if firstLine.hasSuffix("\r") { firstLine.removeLast() }
        return max(1, TerminalText.cells(TerminalText.visible(String(firstLine), keepingLineBreaks: false)))
    }
}
