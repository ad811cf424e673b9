/// Every precedence decision of the language, in one place (decision D1, reference §2.4).
///
/// Predicates, loosest first: OR, AND, then prefix NOT, then comparisons. Expressions, loosest
/// first: `:=` (right), set operators, `|`, `^`, `&`, shifts, `+ -`, `* /`, `**` (right), then
/// prefix `-` and `~`, then postfix `.key` and `[index]`. Reordering these arrays changes the
/// grammar; the printer parenthesises every nested operator, so printed text never depends on it.
enum PrecedenceTable {
    enum Connective: Sendable {
        case or, and
    }

    /// Logical connectives, loosest first.
    static let logical: [Connective] = [.or, .and]

    static func connective(_ t: Token) -> Connective? {
        switch t.kind {
        case .orOr: return .or
        case .andAnd: return .and
        case .keyword:
            if t.keyword == .or { return .or }
            if t.keyword == .and { return .and }
            return nil
        default: return nil
        }
    }

    /// A binary expression operator: a built-in function or a set operator.
    enum BinaryOperator: Hashable, Sendable {
        case function(BuiltinFunction)
        case set(SetOperator)
    }

    /// Binary expression operators by level, loosest first.
    static let binaryLevels: [[BinaryOperator]] = [
        [.set(.union), .set(.intersect), .set(.minus)],
        [.function(.bitwiseOr)],
        [.function(.bitwiseXor)],
        [.function(.bitwiseAnd)],
        [.function(.leftShift), .function(.rightShift)],
        [.function(.add), .function(.subtract)],
        [.function(.multiply), .function(.divide)],
        [.function(.power)],
    ]

    /// Right-associative binary operators: `2 ** 3 ** 2` is `2 ** (3 ** 2)`.
    static let rightAssociative: Set<BinaryOperator> = [.function(.power)]

    private static let levelOf: [BinaryOperator: Int] = {
        var m: [BinaryOperator: Int] = [:]
        for (level, ops) in binaryLevels.enumerated() { for op in ops { m[op] = level } }
        return m
    }()

    /// The operator a token stands for in binary position, with its level.
    static func binaryOperator(_ t: Token) -> (BinaryOperator, Int)? {
        let op: BinaryOperator
        switch t.kind {
        case .pipe: op = .function(.bitwiseOr)
        case .caret: op = .function(.bitwiseXor)
        case .ampersand: op = .function(.bitwiseAnd)
        case .shiftLeft: op = .function(.leftShift)
        case .shiftRight: op = .function(.rightShift)
        case .plus: op = .function(.add)
        case .minus: op = .function(.subtract)
        case .star: op = .function(.multiply)
        case .slash: op = .function(.divide)
        case .starStar: op = .function(.power)
        case .identifier:
            // UNION, INTERSECT and MINUS are keywords only here, so keys with those names work.
            guard !t.escaped, t.text.utf8.count <= 9 else { return nil }
            switch t.text.uppercased() {
            case "UNION": op = .set(.union)
            case "INTERSECT": op = .set(.intersect)
            case "MINUS": op = .set(.minus)
            default: return nil
            }
        default: return nil
        }
        return levelOf[op].map { (op, $0) }
    }

    /// The comparison operator a token stands for.
    static func comparisonOperator(_ t: Token) -> ComparisonOperator? {
        switch t.kind {
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .less: return .lessThan
        case .lessEqual: return .lessThanOrEqual
        case .greater: return .greaterThan
        case .greaterEqual: return .greaterThanOrEqual
        case .keyword:
            switch t.keyword {
            case .in: return .in
            case .contains: return .contains
            case .beginsWith: return .beginsWith
            case .endsWith: return .endsWith
            case .like: return .like
            case .matches: return .matches
            case .between: return .between
            case .utiConformsTo: return .utiConformsTo
            case .utiEquals: return .utiEquals
            default: return nil
            }
        default: return nil
        }
    }
}
