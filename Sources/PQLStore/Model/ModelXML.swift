/// A small, strict XML reader for the two XML files the model loaders read: Xcode's Core Data
/// `contents` and the `.xccurrentversion` property list.
///
/// Written here rather than taken from FoundationXML so that PQLStore does not pull libxml2 in
/// at run time. It reads elements, attributes, self-closing tags, comments, CDATA, processing
/// instructions, a DOCTYPE without an internal subset, the five predefined entities and numeric
/// character references. Anything else (a DTD's own entities, mismatched tags, text after the
/// root) is an error with a line number, because a half-read model is worse than none.
struct ModelXMLElement: Sendable {
    var name: String
    var attributes: [String: String]
    var children: [ModelXMLElement]
    /// The element's own character data (CDATA included), children's text excluded.
    var text: String
    /// The line of the element's `<`.
    var line: Int

    subscript(_ attribute: String) -> String? { attributes[attribute] }

    func children(named name: String) -> [ModelXMLElement] { children.filter { $0.name == name } }
}

struct ModelXMLError: Error, Sendable {
    let line: Int
    let message: String
}

struct ModelXMLReader {
    /// Deeper nesting is an error rather than a stack overflow; model files nest four levels.
    static let maxDepth = 256

    private let b: [UInt8]
    private var i = 0
    /// Offsets of every newline, for line numbers by binary search.
    private let newlines: [Int]

    /// The document's root element.
    static func parse(_ bytes: [UInt8]) throws(ModelXMLError) -> ModelXMLElement {
        var reader = ModelXMLReader(bytes)
        return try reader.document()
    }

    private init(_ bytes: [UInt8]) {
        b = bytes
        var nl: [Int] = []
        for (k, c) in bytes.enumerated() where c == 0x0A { nl.append(k) }
        newlines = nl
    }

    private func line(at p: Int) -> Int {
        var lo = 0, hi = newlines.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if newlines[mid] < p { lo = mid + 1 } else { hi = mid }
        }
        return lo + 1
    }

    private func fail(_ message: String, at p: Int? = nil) -> ModelXMLError {
        ModelXMLError(line: line(at: min(p ?? i, b.count)), message: message)
    }

    private func starts(_ s: String) -> Bool {
        var k = i
        for u in s.utf8 {
            guard k < b.count, b[k] == u else { return false }
            k += 1
        }
        return true
    }

    private func found() -> String {
        guard i < b.count else { return "end of file" }
        let c = b[i]
        return c >= 0x21 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : (c < 0x80 ? "whitespace or a control character" : "a non-ASCII character")
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = i
        while i < b.count, Self.isSpace(b[i]) { i += 1 }
        return i > start
    }

    private static func isNameStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x3A || c >= 0x80
    }

    private static func isNameChar(_ c: UInt8) -> Bool {
        isNameStart(c) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E
    }

    private mutating func name() -> String? {
        guard i < b.count, Self.isNameStart(b[i]) else { return nil }
        let start = i
        while i < b.count, Self.isNameChar(b[i]) { i += 1 }
        return String(decoding: b[start..<i], as: UTF8.self)
    }

    // MARK: Document

    private mutating func document() throws(ModelXMLError) -> ModelXMLElement {
        if b.count >= 2, (b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE) {
            throw fail("the file is UTF-16; only UTF-8 XML is read", at: 0)
        }
        guard String(validating: b, as: UTF8.self) != nil else { throw fail("the file is not valid UTF-8", at: 0) }
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        try misc(allowDoctype: true)
        guard i < b.count else { throw fail("the file holds no XML element") }
        guard b[i] == UInt8(ascii: "<") else { throw fail("expected '<' to open the root element, found \(found())") }
        let root = try element(depth: 0)
        try misc(allowDoctype: false)
        if i < b.count {
            throw fail("unexpected \(b[i] == UInt8(ascii: "<") ? "second root element" : "text") after the root element <\(root.name)> (opened on line \(root.line))")
        }
        return root
    }

    /// Whitespace, comments and processing instructions around the root element.
    private mutating func misc(allowDoctype: Bool) throws(ModelXMLError) {
        while true {
            skipSpace()
            if starts("<?") { try processingInstruction() }
            else if starts("<!--") { try comment() }
            else if starts("<!DOCTYPE") {
                guard allowDoctype else { throw fail("a DOCTYPE may only come before the root element") }
                try doctype()
            } else { return }
        }
    }

    private mutating func processingInstruction() throws(ModelXMLError) {
        let start = i
        i += 2
        guard name() != nil else { throw fail("expected a name after '<?'") }
        _ = try skip(past: "?>", opened: start, what: "'<?'")
    }

    private mutating func comment() throws(ModelXMLError) {
        let start = i
        i += 4
        _ = try skip(past: "-->", opened: start, what: "comment")
    }

    /// Moves past the next `end`, returning the bytes before it; an error names `what` opened at `opened`.
    private mutating func skip(past end: String, opened: Int, what: String) throws(ModelXMLError) -> ArraySlice<UInt8> {
        let from = i
        while i < b.count, !starts(end) { i += 1 }
        guard i < b.count else { throw fail("unterminated \(what) (no closing '\(end)')", at: opened) }
        defer { i += end.utf8.count }
        return b[from..<i]
    }

    private mutating func doctype() throws(ModelXMLError) {
        let start = i
        i += 9
        var quote: UInt8? = nil
        while i < b.count {
            let c = b[i]
            if let q = quote { if c == q { quote = nil } }
            else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { quote = c }
            else if c == UInt8(ascii: "[") { throw fail("DOCTYPE internal subsets (entity declarations) are not supported") }
            else if c == UInt8(ascii: ">") { i += 1; return }
            i += 1
        }
        throw fail("unterminated DOCTYPE (no closing '>')", at: start)
    }

    // MARK: Elements

    private mutating func element(depth: Int) throws(ModelXMLError) -> ModelXMLElement {
        let start = i
        let line = self.line(at: start)
        guard depth < Self.maxDepth else { throw fail("elements nest deeper than \(Self.maxDepth) levels") }
        i += 1
        guard let tag = name() else { throw fail("expected an element name after '<', found \(found())") }
        var element = ModelXMLElement(name: tag, attributes: [:], children: [], text: "", line: line)
        // Attributes, up to '>' or '/>'.
        while true {
            let spaced = skipSpace()
            guard i < b.count else { throw fail("unterminated tag <\(tag)> (opened on line \(line)): the file ends inside it") }
            if starts("/>") { i += 2; return element }
            if b[i] == UInt8(ascii: ">") { i += 1; break }
            if b[i] == UInt8(ascii: "<") { throw fail("unterminated tag <\(tag)> (opened on line \(line)): found '<' before its '>'") }
            guard spaced else { throw fail("expected whitespace, '>' or '/>' in tag <\(tag)>, found \(found())") }
            let attributeStart = i
            guard let key = name() else { throw fail("expected an attribute name in tag <\(tag)>, found \(found())") }
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "=") else { throw fail("attribute '\(key)' of <\(tag)> has no value (expected '=\"…\"')") }
            i += 1
            skipSpace()
            let value = try attributeValue(key, in: tag)
            guard element.attributes[key] == nil else { throw fail("attribute '\(key)' appears twice in <\(tag)>", at: attributeStart) }
            element.attributes[key] = value
        }
        // Content, up to the matching end tag.
        var text: [UInt8] = []
        while true {
            guard i < b.count else { throw fail("element <\(tag)> opened on line \(line) is never closed") }
            if starts("</") {
                let closeStart = i
                i += 2
                let closing = name() ?? ""
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ">") else { throw fail("unterminated closing tag </\(closing)>", at: closeStart) }
                i += 1
                guard closing == tag else {
                    throw fail("closing tag </\(closing)> does not match <\(tag)> opened on line \(line)", at: closeStart)
                }
                element.text = String(decoding: text, as: UTF8.self)
                return element
            } else if starts("<!--") {
                try comment()
            } else if starts("<![CDATA[") {
                let cdataStart = i
                i += 9
                text.append(contentsOf: try skip(past: "]]>", opened: cdataStart, what: "CDATA section"))
            } else if starts("<?") {
                try processingInstruction()
            } else if starts("<!") {
                throw fail("unexpected '<!' in element <\(tag)>")
            } else if b[i] == UInt8(ascii: "<") {
                element.children.append(try self.element(depth: depth + 1))
            } else if b[i] == UInt8(ascii: "&") {
                text += try reference()
            } else {
                text.append(b[i])
                i += 1
            }
        }
    }

    private mutating func attributeValue(_ key: String, in tag: String) throws(ModelXMLError) -> String {
        guard i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else {
            throw fail("the value of attribute '\(key)' in <\(tag)> must be quoted, found \(found())")
        }
        let quote = b[i]
        let start = i
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < b.count else { throw fail("unterminated value of attribute '\(key)' in <\(tag)>", at: start) }
            let c = b[i]
            if c == quote { i += 1; break }
            if c == UInt8(ascii: "<") { throw fail("'<' in the value of attribute '\(key)' in <\(tag)> must be written &lt;") }
            if c == UInt8(ascii: "&") { out += try reference(); continue }
            // XML normalizes literal line breaks and tabs in attribute values to spaces;
            // &#10; written as a reference survives.
            out.append(Self.isSpace(c) ? 0x20 : c)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;`, `&#NNN;`, `&#xHHH;` as UTF-8.
    private mutating func reference() throws(ModelXMLError) -> [UInt8] {
        let start = i
        i += 1
        var body: [UInt8] = []
        while i < b.count, b[i] != UInt8(ascii: ";"), body.count <= 12 {
            body.append(b[i])
            i += 1
        }
        guard i < b.count, b[i] == UInt8(ascii: ";") else {
            throw fail("'&' must start an entity such as &amp; (no ';' follows it)", at: start)
        }
        i += 1
        let text = String(decoding: body, as: UTF8.self)
        switch text {
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "amp": return [UInt8(ascii: "&")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default: break
        }
        if text.hasPrefix("#") {
            let digits = text.dropFirst()
            let value: UInt32?
            if digits.hasPrefix("x") || digits.hasPrefix("X") { value = UInt32(digits.dropFirst(), radix: 16) }
            else { value = UInt32(digits, radix: 10) }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                throw fail("'&\(text);' is not a valid character reference", at: start)
            }
            return Array(String(Character(scalar)).utf8)
        }
        throw fail("unknown entity '&\(text);' (XML knows &lt; &gt; &amp; &quot; &apos; and &#…;)", at: start)
    }
}
