import Foundation

/// Writes trees in the canonical form of reference §7 (Apple's `predicateFormat`).
///
/// Where Apple's text would not parse back to the same tree, PQL prints a form that does
/// (decision D9): doubles keep a fractional part (`10.0`), keys that are not identifiers print
/// as `#"first name"`, and constants without literal syntax print as a `CAST` of a literal
/// (dates as Apple does, sets, dictionaries, decimals, data, NaN and infinities in the same way),
/// which the parser folds back into the constant.
enum CanonicalPrinter {
    // MARK: Predicates

    static func write(_ p: PredicateNode, to out: inout String) {
        switch p {
        case .constant(let b): out += b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let c): write(c, to: &out)
        case .and(let ps): writeCompound(ps, " AND ", empty: "TRUEPREDICATE", to: &out)
        case .or(let ps): writeCompound(ps, " OR ", empty: "FALSEPREDICATE", to: &out)
        case .not(let inner):
            out += "NOT "
            writeChild(inner, to: &out)
        }
    }

    private static func writeCompound(_ ps: [PredicateNode], _ separator: String, empty: String, to out: inout String) {
        if ps.isEmpty { out += empty; return }
        if ps.count == 1 { write(ps[0], to: &out); return }
        for (i, child) in ps.enumerated() {
            if i > 0 { out += separator }
            writeChild(child, to: &out)
        }
    }

    /// Compound children are parenthesised; comparisons and constants are not.
    private static func writeChild(_ p: PredicateNode, to out: inout String) {
        switch p {
        case .and(let ps) where ps.count > 1, .or(let ps) where ps.count > 1:
            out += "("; write(p, to: &out); out += ")"
        case .not:
            out += "("; write(p, to: &out); out += ")"
        default:
            write(p, to: &out)
        }
    }

    static func write(_ c: ComparisonNode, to out: inout String) {
        if let (lhs, selector, rhs) = SelectorOperator.parts(of: c) {
            // `FUNCTION(a, "sel:", b) == YES` is the custom selector operator `a sel: b`.
            write(lhs, to: &out)
            out += " \(selector) "
            write(rhs, to: &out)
            return
        }
        switch c.quantifier {
        case .direct: break
        case .any: out += "ANY "
        case .all: out += "ALL "
        }
        write(c.lhs, to: &out)
        out += " "
        out += c.op.symbol
        out += c.options.suffix
        out += " "
        write(c.rhs, to: &out)
    }

    // MARK: Expressions

    static func write(_ e: ExpressionNode, to out: inout String) {
        switch e {
        case .constant(let v): write(v, to: &out)
        case .evaluatedObject: out += "SELF"
        case .variable(let name): writeVariable(name, to: &out)
        case .keyPath(let path): writeKeyPath(path, to: &out)
        case .keyPathOn(let operand, let path):
            writePostfixOperand(operand, beforeKey: true, to: &out)
            out += "."
            writeKeyPath(path, to: &out)
        case .aggregate(let elements):
            out += "{"
            for (i, el) in elements.enumerated() {
                if i > 0 { out += ", " }
                write(el, to: &out)
            }
            out += "}"
        case .function(let f, let args):
            writeFunction(f, args, to: &out)
        case .index(let base, let sub):
            writePostfixOperand(base, beforeKey: false, to: &out)
            out += "["
            switch sub {
            case .first: out += "FIRST"
            case .last: out += "LAST"
            case .size: out += "SIZE"
            case .expression(let i): write(i, to: &out)
            }
            out += "]"
        case .customFunction(let target, let selector, let args):
            out += "FUNCTION("
            write(target, to: &out)
            out += ", "
            writeString(selector, to: &out)
            for (i, a) in args.enumerated() {
                out += i == 0 ? " , " : ", "  // Apple puts a space before the argument list
                write(a, to: &out)
            }
            out += ")"
        case .cast(let value, let type):
            out += "CAST("
            write(value, to: &out)
            out += ", "
            write(type, to: &out)
            out += ")"
        case .ternary(let p, let a, let b):
            out += "TERNARY("
            write(p, to: &out)
            out += ", "
            write(a, to: &out)
            out += ", "
            write(b, to: &out)
            out += ")"
        case .subquery(let collection, let variable, let predicate):
            out += "SUBQUERY("
            write(collection, to: &out)
            out += ", "
            writeVariable(variable, to: &out)
            out += ", "
            write(predicate, to: &out)
            out += ")"
        case .assignment(let variable, let value):
            writeVariable(variable, to: &out)
            out += " := "
            write(value, to: &out)
        case .setOperation(let op, let a, let b):
            writeBinaryOperand(a, to: &out)
            out += " \(op.rawValue) "
            writeBinaryOperand(b, to: &out)
        case .anyKey:
            out += "ANYKEY"
        }
    }

    private static func writeFunction(_ f: BuiltinFunction, _ args: [ExpressionNode], to out: inout String) {
        if let symbol = f.infixSymbol, args.count == 2 {
            writeBinaryOperand(args[0], to: &out)
            out += " \(symbol) "
            writeBinaryOperand(args[1], to: &out)
            return
        }
        if (f == .negate || f == .onesComplement), args.count == 1 {
            out += f == .negate ? "-" : "~"
            let operand = args[0]
            // A number after '-' would fold into a negative literal; keep the node visible.
            if needsParenthesesAsPostfixOperand(operand, beforeKey: false) || (f == .negate && startsWithNumber(operand)) {
                out += "("; write(operand, to: &out); out += ")"
            } else {
                write(operand, to: &out)
            }
            return
        }
        out += f.selector
        out += "("
        for (i, a) in args.enumerated() {
            if i > 0 { out += ", " }
            write(a, to: &out)
        }
        out += ")"
    }

    /// Operands of infix operators: nested operators are always parenthesised (reference §7.2).
    private static func writeBinaryOperand(_ e: ExpressionNode, to out: inout String) {
        switch e {
        case .function(let f, let args) where f.infixSymbol != nil && args.count == 2:
            out += "("; write(e, to: &out); out += ")"
        case .setOperation, .assignment:
            out += "("; write(e, to: &out); out += ")"
        default:
            write(e, to: &out)
        }
    }

    /// Operands of `.key` and `[index]` must be primaries.
    private static func writePostfixOperand(_ e: ExpressionNode, beforeKey: Bool, to out: inout String) {
        if needsParenthesesAsPostfixOperand(e, beforeKey: beforeKey) {
            out += "("; write(e, to: &out); out += ")"
        } else {
            write(e, to: &out)
        }
    }

    private static func needsParenthesesAsPostfixOperand(_ e: ExpressionNode, beforeKey: Bool) -> Bool {
        switch e {
        case .function(let f, _): return f.infixSymbol != nil || f == .negate || f == .onesComplement
        case .setOperation, .assignment: return true
        // `.key` after a key path would extend that path; parentheses keep the operand separate.
        case .keyPath, .keyPathOn: return beforeKey
        case .constant(.int(let i)): return i < 0
        // Only text that starts with '-' needs them: NaN and infinities print as CAST(…).
        case .constant(.double(let d)): return d.sign == .minus && !d.isNaN && !d.isInfinite
        default: return false
        }
    }

    /// Whether the printed text begins with a number literal, which a '-' in front would
    /// fold into a negative literal: `5`, `5[FIRST]`, `5.y`, `YES.y` (printed 1.y).
    private static func startsWithNumber(_ e: ExpressionNode) -> Bool {
        switch e {
        case .constant(let v):
            guard let n = v.numeric else { return false }
            if case .double(let d) = n { return !d.isNaN && !d.isInfinite }
            return true
        case .index(let base, _): return !needsParenthesesAsPostfixOperand(base, beforeKey: false) && startsWithNumber(base)
        case .keyPathOn(let base, _): return !needsParenthesesAsPostfixOperand(base, beforeKey: true) && startsWithNumber(base)
        default: return false
        }
    }

    // MARK: Names

    static func writeKeyPath(_ path: [String], to out: inout String) {
        for (i, component) in path.enumerated() {
            if i > 0 { out += "." }
            writeKeyComponent(component, to: &out)
        }
    }

    static func writeKeyComponent(_ c: String, to out: inout String) {
        if c.hasPrefix("@"), isIdentifier(c.dropFirst()) {
            out += c
        } else if isIdentifier(Substring(c)) {
            if Keyword.reservedSpellings.contains(c.uppercased()) { out += "#" }
            out += c
        } else {
            out += "#"
            writeString(c, to: &out)
        }
    }

    static func writeVariable(_ name: String, to out: inout String) {
        out += "$"
        if Keyword.reservedSpellings.contains(name.uppercased()) { out += "#" }
        out += name
    }

    /// An identifier as the lexer reads one: ASCII letters, digits, `_`, or Unicode XID.
    static func isIdentifier(_ s: Substring) -> Bool {
        guard let first = s.unicodeScalars.first else { return false }
        guard first == "_" || (first.isASCII ? first.properties.isAlphabetic : first.properties.isXIDStart) else { return false }
        for u in s.unicodeScalars.dropFirst() {
            if u.isASCII {
                guard u == "_" || (u.value >= 0x30 && u.value <= 0x39) || (u.value >= 0x41 && u.value <= 0x5A) || (u.value >= 0x61 && u.value <= 0x7A) else { return false }
            } else if !u.properties.isXIDContinue {
                return false
            }
        }
        return true
    }

    // MARK: Constants

    /// `booleanWords`: Booleans as `true` and `false`, for people (``PredicateValue/description``);
    /// the canonical form prints Apple's `1` and `0`.
    static func write(_ v: PredicateValue, to out: inout String, booleanWords: Bool = false) {
        switch v {
        case .null: out += "nil"
        case .bool(let b): out += booleanWords ? (b ? "true" : "false") : (b ? "1" : "0")
        case .int(let i): out += String(i)
        case .double(let d): writeDouble(d, to: &out)
        case .decimal(let d):
            out += "CAST("; writeString(PredicateValue.decimalText(d), to: &out); out += ", \"NSDecimalNumber\")"
        case .string(let s): writeString(s, to: &out)
        case .date(let date):
            out += "CAST("
            out += PredicateValue.dateSecondsText(date.timeIntervalSinceReferenceDate)
            out += ", \"NSDate\")"
        case .data(let data):
            out += "CAST("; writeString(data.base64EncodedString(), to: &out); out += ", \"NSData\")"
        case .array(let a):
            writeList(a, to: &out, booleanWords: booleanWords)
        case .set(let a):
            // Sets have no order; sorting makes equal sets print alike, as dictionaries do.
            out += "CAST("; writeList(canonicalOrder(a), to: &out, booleanWords: booleanWords); out += ", \"NSSet\")"
        case .dictionary(let d):
            out += "CAST({"
            for (i, key) in d.keys.sorted().enumerated() {
                if i > 0 { out += ", " }
                out += "{"; writeString(key, to: &out); out += ", "; write(d[key]!, to: &out, booleanWords: booleanWords); out += "}"
            }
            out += "}, \"NSDictionary\")"
        }
    }

    /// A fixed order for set elements: nil, numbers by value (NaN after them), strings, then
    /// the rest; ties are broken by the printed text.
    static func canonicalOrder(_ a: [PredicateValue]) -> [PredicateValue] {
        func key(_ v: PredicateValue) -> (rank: Int, number: Double, text: String) {
            var text = ""
            write(v, to: &text)
            switch v {
            case .null: return (0, 0, text)
            case .bool, .int, .double, .decimal:
                let d = v.numeric!.doubleValue
                return d.isNaN ? (2, 0, text) : (1, d, text)
            case .string: return (3, 0, text)
            default: return (4, 0, text)
            }
        }
        return a.map { (key($0), $0) }
            .sorted { l, r in (l.0.rank, l.0.number, l.0.text) < (r.0.rank, r.0.number, r.0.text) }
            .map(\.1)
    }

    private static func writeList(_ a: [PredicateValue], to out: inout String, booleanWords: Bool = false) {
        out += "{"
        for (i, e) in a.enumerated() {
            if i > 0 { out += ", " }
            write(e, to: &out, booleanWords: booleanWords)
        }
        out += "}"
    }

    static func writeDouble(_ d: Double, to out: inout String) {
        if d.isNaN { out += "CAST(\"nan\", \"NSNumber\")"; return }
        if d.isInfinite { out += d > 0 ? "CAST(\"inf\", \"NSNumber\")" : "CAST(\"-inf\", \"NSNumber\")"; return }
        // Swift's shortest round-trip text; it always has '.', 'e', or both, so it reads back
        // as a double and integer division never sneaks in.
        out += d.description
    }

    /// Double-quoted; `\` and `"` are escaped, and control characters other than a newline or
    /// a tab (ESC, BEL, NUL, CR, DEL, the C1 controls) are written as `\u001B` (reference
    /// §7.2): the text reads back as the same string, and printed text can never send an
    /// escape sequence to a terminal.
    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for ch in s.unicodeScalars {
            switch ch.value {
            case 0x5C: out += "\\\\"
            case 0x22: out += "\\\""
            case 0x09, 0x0A: out.unicodeScalars.append(ch)
            case 0..<0x20, 0x7F...0x9F: out += "\\u" + String(format: "%04X", ch.value)
            default: out.unicodeScalars.append(ch)
            }
        }
        out += "\""
    }
}

extension PredicateValue {
    /// The text of a decimal constant inside its CAST.
    static func decimalText(_ d: Decimal) -> String { d.description }

    /// Seconds since 2001 printed with six decimals as Apple does, or with every digit needed
    /// to read the same instant back.
    static func dateSecondsText(_ t: Double) -> String {
        let six = String(format: "%.6f", t)
        if Double(six) == t { return six }
        return t.description
    }
}

extension PredicateNode: CustomStringConvertible {
    /// The canonical format string (reference §7).
    public var description: String {
        // A deep tree built in code prints on a large stack: the printer recurses, and under
        // the address sanitizer 126 nested calls overflowed a 512 KiB thread.
        let tree = self
        return LargeStack.run(if: nestsDeeper(than: PredicateNode.inlineWalkDepth)) {
            var s = ""
            CanonicalPrinter.write(tree, to: &s)
            return s
        }
    }
}

extension ExpressionNode: CustomStringConvertible {
    /// The canonical format string (reference §7).
    public var description: String {
        var s = ""
        CanonicalPrinter.write(self, to: &s)
        return s
    }
}

extension ComparisonNode: CustomStringConvertible {
    /// The comparison's canonical text, as it prints inside a predicate: `ANY kids.age > 5`.
    public var description: String {
        var s = ""
        CanonicalPrinter.write(self, to: &s)
        return s
    }
}

extension PredicateValue: CustomStringConvertible {
    /// The value as people read it, written as in a predicate: `"text"`, `42`, `{1, 2}`, `nil`,
    /// and Booleans as `true` and `false` (which parse back as Booleans). A predicate's
    /// canonical text (``PredicateNode/description``) prints Booleans as Apple's `1` and `0`.
    ///
    /// ```swift
    /// PredicateValue.bool(true).description                  // "true"
    /// PredicateValue.array([.bool(false), .int(1)]).description   // "{false, 1}"
    /// ```
    public var description: String {
        var s = ""
        CanonicalPrinter.write(self, to: &s, booleanWords: true)
        return s
    }
}
