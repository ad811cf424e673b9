import Foundation

/// The `%` arguments of a format string, consumed left to right while parsing (reference §5).
///
/// Each specifier checks its argument's type: `%K` takes a key-path string, `%d` an integer,
/// `%f` a number, `%s` a string, `%@` any value (or an ``ExpressionNode``, inserted as is).
/// A missing or mistyped argument is a ``PredicateFormatError`` at the specifier; a surplus one
/// is a warning (``PredicateDiagnostic``).
struct ArgumentList {
    private let values: [Any?]
    private(set) var used = 0

    init(_ values: [Any?]) { self.values = values }


    /// The node a specifier token stands for; `spec` is its text.
    mutating func bind(_ t: Token, _ spec: String, source: String) throws(PredicateFormatError) -> ExpressionNode {
        func fail(_ kind: PredicateFormatError.Kind, _ message: String, hint: String? = nil) -> PredicateFormatError {
            Diagnostics.error(kind, message, start: t.start, end: t.end, source: source, hint: hint)
        }
        if spec == "%%" { return .constant(.string("%")) }
        let ordinal = used + 1
        guard used < values.count else {
            throw fail(.missingArgument,
                       "\(spec) has no argument: the format string needs more than the \(values.count) given",
                       hint: "pass one argument for every specifier, in order")
        }
        var raw = PredicateValue.unwrap(values[used])
        if case .string(let s)? = raw as? PredicateValue { raw = s }
        used += 1
        let conversion = spec.last!
        // A PredicateValue (the command line's --arg, a value built in code) by its kind, not
        // its Swift type: "a double", where "PredicateValue" says nothing.
        let typeName = raw.map { ($0 as? PredicateValue)?.kindDescription ?? "\(type(of: $0))" } ?? "nil"
        switch conversion {
        case "K":
            guard let key = raw as? String ?? (raw as? Substring).map(String.init) else {
                throw fail(.argumentType, "%K needs a key-path string, but argument \(ordinal) is \(typeName)",
                           hint: "pass the key name as a String, e.g. \"address.city\"")
            }
            let components = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !key.isEmpty, !components.contains(where: \.isEmpty) else {
                throw fail(.argumentType, "%K argument \(ordinal) \"\(key)\" is not a key path",
                           hint: "a key path is one or more non-empty keys joined by dots")
            }
            return .keyPath(components)
        case "@":
            if let e = raw as? ExpressionNode { return e }
            guard let v = PredicateValue(any: raw) else {
                throw fail(.argumentType, "%@ argument \(ordinal) of type \(typeName) has no predicate value",
                           hint: "pass a string, number, Bool, Date, Data, array, set, dictionary, nil, or a PredicateValueConvertible")
            }
            return .constant(v)
        case "d", "i", "D":
            guard let v = Self.integer(raw) else {
                throw fail(.argumentType, "\(spec) needs an integer, but argument \(ordinal) is \(typeName)",
                           hint: "use %@ for values of other types")
            }
            return .constant(v)
        case "u", "U", "o", "O", "x", "X":
            guard let v = Self.integer(raw) else {
                throw fail(.argumentType, "\(spec) needs an unsigned integer, but argument \(ordinal) is \(typeName)",
                           hint: "use %@ for values of other types")
            }
            if case .int(let i) = v, i < 0 {
                throw fail(.argumentType, "\(spec) needs an unsigned integer, but argument \(ordinal) is \(i)",
                           hint: "use %d or %@ for negative numbers")
            }
            return .constant(v)
        case "e", "E", "f", "F", "g", "G", "a", "A":
            // %f's narrowing to Float is an Objective-C varargs artefact; PQL keeps the double.
            guard let v = Self.floating(raw) else {
                throw fail(.argumentType, "\(spec) needs a number, but argument \(ordinal) is \(typeName)",
                           hint: "use %@ for values of other types")
            }
            return .constant(v)
        case "c", "C":
            if let i = Self.integer(raw) { return .constant(i) }
            let s = raw as? String ?? (raw as? Character).map { String($0) }
            guard let s, s.unicodeScalars.count == 1, let scalar = s.unicodeScalars.first,
                  conversion == "C" || scalar.isASCII else {
                throw fail(.argumentType, "\(spec) needs a character, but argument \(ordinal) is \(typeName)",
                           hint: "pass a single Character; %c and %C produce its code as a number")
            }
            return .constant(.int(Int64(scalar.value)))
        case "s", "S", "P":
            guard let s = raw as? String ?? (raw as? Substring).map(String.init) else {
                throw fail(.argumentType, "\(spec) needs a string, but argument \(ordinal) is \(typeName)",
                           hint: "use %@ for values of other types")
            }
            return .constant(.string(s))
        default:  // "p"
            throw fail(.argumentType, "%p would pass a pointer, which has no meaning in a Swift predicate",
                       hint: "use %@ with the value itself")
        }
    }

    /// Arguments no specifier took are ignored, as `NSPredicate` ignores them (decision D15),
    /// but never silently: a warning at the end of the input, and one at each quoted string
    /// holding a specifier's text (`'%@'`), the usual reason an argument goes unused.
    /// `quoted` lists those strings' byte ranges.
    /// With no argument left over, a quoted specifier still misleads when arguments were
    /// given: the reader takes it for one, and the arguments go to the specifiers outside
    /// quotes (`id == '%@' OR id == %@` gives its one argument to the second).
    func surplusWarnings(source: String, end: Int, quoted: [(start: Int, end: Int, specifier: String)]) -> [PredicateDiagnostic] {
        guard used < values.count else {
            guard !values.isEmpty else { return [] }
            return quoted.prefix(100).map { q in
                PredicateDiagnostic.warning(.quotedSpecifier, "'\(q.specifier)' inside quotes is text, not a specifier: no argument goes here",
                                            start: q.start, end: q.end, source: source,
                                            hint: "remove the quotes if an argument belongs here: \(q.specifier)", replacement: q.specifier)
            }
        }
        let extra = values.count - used
        var out: [PredicateDiagnostic] = []
        let first = used + 1
        // One quoted specifier for each argument left over: the i-th of them would have taken
        // the i-th. (At most 100: each warning's place is counted from the start of the text.)
        for (i, q) in quoted.prefix(min(extra, 100)).enumerated() {
            let which = "argument \(first + i) is never used"
            out.append(PredicateDiagnostic.warning(.quotedSpecifier, "'\(q.specifier)' inside quotes is text, not a specifier: \(which)",
                                start: q.start, end: q.end, source: source,
                                hint: "remove the quotes to use the argument: \(q.specifier)", replacement: q.specifier))
        }
        let arguments = extra == 1 ? "argument \(first) is" : "arguments \(first)–\(values.count) are"
        out.insert(PredicateDiagnostic.warning(.surplusArgument,
                            "\(values.count) argument\(values.count == 1 ? " was" : "s were") given but the format string has \(used) specifier\(used == 1 ? "" : "s"): \(arguments) ignored",
                            start: end, end: end, source: source,
                            hint: quoted.isEmpty
                                ? "remove the extra argument\(extra == 1 ? "" : "s"), or add %@ where \(extra == 1 ? "it belongs" : "they belong")"
                                : "a specifier inside quotes is text; remove the quotes around it"), at: 0)
        return out
    }

    /// The first specifier written inside a string literal's text (`%@` in `'%@'`), if any.
    static func quotedSpecifier(in text: String) -> String? {
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "%") else { i += 1; continue }
            var j = i + 1
            // printf's flags, width, precision and length modifiers, as the lexer skips them.
            while j < bytes.count, "-+ #0123456789.hlqLztj".utf8.contains(bytes[j]) { j += 1 }
            if j < bytes.count, "@KdiDuUoOxXeEfFgGaAcCsSP".utf8.contains(bytes[j]) {
                return String(decoding: bytes[i...j], as: UTF8.self)
            }
            i = j + (j < bytes.count && bytes[j] == UInt8(ascii: "%") ? 1 : 0)
        }
        return nil
    }

    private static func integer(_ raw: Any?) -> PredicateValue? {
        guard let raw, let v = PredicateValue(any: raw) else { return nil }
        switch v {
        case .int, .bool: return v
        case .decimal(let d) where d == d.rounded():
            // An integral Decimal is an integer here, unless it is beyond Int64 (%llu).
            return Int64(d.description).map { .int($0) } ?? v
        default: return nil
        }
    }

    private static func floating(_ raw: Any?) -> PredicateValue? {
        guard let raw, let v = PredicateValue(any: raw) else { return nil }
        switch v {
        // %f reads a double: an integer argument becomes one, so it prints and divides as one.
        case .int(let i): return .double(Double(i))
        case .double, .decimal: return v
        default: return nil
        }
    }
}

extension Decimal {
    func rounded() -> Decimal {
        var source = self
        var result = Decimal()
        NSDecimalRound(&result, &source, 0, .plain)
        return result
    }
}
