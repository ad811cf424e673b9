/// A place in a format string: UTF-8 byte offset and length, with the 1-based line and column
/// (counted in characters) of its start.
///
/// ```swift
/// do { _ = try PredicateNode(format: "age >") }
/// catch let e as PredicateFormatError { print(e.range.column) }   // 6
/// ```
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    /// Byte offset of the first byte, in the UTF-8 encoding of the source.
    public let offset: Int
    /// Length in UTF-8 bytes (0 at the end of input).
    public let length: Int
    /// 1-based line number.
    public let line: Int
    /// 1-based column, in characters from the start of the line.
    public let column: Int

    /// Creates a range from its UTF-8 offset and length and the line and column where it starts (both from 1).
    public init(offset: Int, length: Int, line: Int, column: Int) {
        self.offset = offset
        self.length = length
        self.line = line
        self.column = column
    }

    /// Computes line and column of a byte range in `source`.
    init(offset: Int, length: Int, in source: String) {
        let utf8 = source.utf8
        let clamped = max(0, min(offset, utf8.count))
        var line = 1
        var lineStart = utf8.startIndex
        var i = utf8.startIndex
        let end = utf8.index(utf8.startIndex, offsetBy: clamped)
        while i < end {
            if utf8[i] == UInt8(ascii: "\n") { line += 1; lineStart = utf8.index(after: i) }
            i = utf8.index(after: i)
        }
        // Columns count characters; a range that starts inside a character (a combining mark
        // after a space) gets that character's column.
        var column = 1
        var c = String.Index(lineStart, within: source) ?? source.startIndex
        while c < end {
            let next = source.index(after: c)
            if next > end { break }
            column += 1
            c = next
        }
        self.init(offset: clamped, length: max(0, length), line: line, column: column)
    }

    /// The start as people read it: `line 1, column 6`.
    public var description: String { "line \(line), column \(column)" }
}
