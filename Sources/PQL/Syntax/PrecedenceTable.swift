/// Every precedence decision of the language, in one place (decision D1, reference §2.4).
///
/// Predicates, loosest first: OR, AND, then prefix NOT, then comparisons. Expressions, loosest
/// first: `:=` (right), set operators, `|`, `^`, `&`, shifts, `+ -`, `* /`, `**` (right), then
/// prefix `-` and `~`, then postfix `.key` and `[index]`. Reordering these arrays changes the
/// grammar; the printer parenthesises every nested operator, so printed text never depends on it.
enum PrecedenceTable {
    /// Logical connectives, loosest first: OR, then AND. The parser has a rule for each
    /// (``Parser/parseOr()``, ``Parser/parseAnd()``), as the grammar does.
    enum Connective: Sendable {
        case or, and
    }

    /// The connective a token stands for. Inlined, as is ``comparisonOperator(_:)``: asked
    /// after every operand.
    @inline(__always)
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

    /// The level of each operator in ``binaryLevels``, by a switch rather than a dictionary
    /// lookup (which hashes), as it is asked after every operand.
    static func level(of op: BinaryOperator) -> Int {
        switch op {
        case .set: return 0
        case .function(.bitwiseOr): return 1
        case .function(.bitwiseXor): return 2
        case .function(.bitwiseAnd): return 3
        case .function(.leftShift), .function(.rightShift): return 4
        case .function(.add), .function(.subtract): return 5
        case .function(.multiply), .function(.divide): return 6
        default: return 7
        }
    }

    /// The operator a token stands for in binary position, with its level.
    static func binaryOperator(_ t: Token, in lexer: Lexer) -> (BinaryOperator, Int)? {
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
            if lexer.isContextual(t, "UNION", anyLengthUpTo: 9) {
                op = .set(.union)
            } else if lexer.isContextual(t, "INTERSECT", anyLengthUpTo: 9) {
                op = .set(.intersect)
            } else if lexer.isContextual(t, "MINUS", anyLengthUpTo: 9) {
                op = .set(.minus)
            } else {
                return nil
            }
        default: return nil
        }
        return (op, level(of: op))
    }

    /// The comparison operator a token stands for.
    @inline(__always)
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
