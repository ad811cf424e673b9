import Foundation
import PQL

/// Native-only mode's arithmetic and string functions: `+ - * /`, `%` on integers, `abs:`,
/// negation, `length:`, `uppercase:` and `lowercase:`, with the evaluator's rules (`Arithmetic`,
/// `FunctionEvaluation`): integers on 64 bits with an overflow an error, integer division by
/// zero 0, any double makes the arithmetic IEEE double arithmetic, booleans count as 0 and 1, a
/// date moves by seconds, and a nil operand raises the evaluator's own error. What the database
/// cannot do the evaluator's way (decimals, `%` of doubles) is refused with a hint.
extension PredicateSQLCompiler {
    /// The native form of `f(args)`, or nil when `f` has none.
    mutating func nativeFunction(_ f: BuiltinFunction, _ args: [ExpressionNode], in scope: SQLScope) throws(StoreError) -> SQLExpression? {
        switch (f, args.count) {
        case (.add, 2), (.subtract, 2), (.multiply, 2), (.divide, 2), (.modulus, 2), (.abs, 1), (.negate, 1):
            var operands: [SQLExpression] = []
            for a in args { operands.append(try scalar(a, in: scope)) }
            return try nativeArithmetic(f, operands)
        case (.length, 1), (.uppercase, 1), (.lowercase, 1):
            let x = try scalar(args[0], in: scope)
            guard x.kind == .string, !x.isObject else {
                throw fail(.unsupported, "\(f.selector) of a value that is not text has no PostgreSQL form in PQL",
                           hint: "\(f.selector) takes a text attribute; on anything else it raises in memory")
            }
            let value = try requiringValue(x, of: f, among: [x], at: 0)
            let function: SQLFunction = f == .length ? .utf16Length : f == .uppercase ? .uppercase : .lowercase
            return SQLExpression(node: .call(function, [value.node]), kind: f == .length ? .integer : .string, nullable: false)
        default:
            return nil
        }
    }

    private mutating func nativeArithmetic(_ f: BuiltinFunction, _ operands: [SQLExpression]) throws(StoreError) -> SQLExpression {
        let symbol = f.infixSymbol ?? f.selector
        for x in operands where x.isObject || x.isNullConstant {
            throw fail(.unsupported, "\(symbol) with \(x.isObject ? "a related object" : "nil") as an operand has no PostgreSQL form in PQL",
                       hint: "it raises in memory for every row: compare numbers, or test for nil first")
        }
        let kinds = operands.map(\.kind)
        if kinds.contains(.decimal) {
            throw fail(.unsupported, "arithmetic on decimals (\(symbol)) has no PostgreSQL form in PQL",
                       hint: "PQL's decimals keep 38 digits and PostgreSQL's numeric keeps all: results differ at the edges; filter in memory")
        }
        var values: [SQLExpression] = []
        for (i, x) in operands.enumerated() { values.append(try requiringValue(x, of: f, among: operands, at: i)) }
        let numeric: Set<SQLKind> = [.integer, .boolean, .real]
        if kinds.contains(.date) {
            // Dates move by seconds, and differ by seconds (Arithmetic.binary).
            switch (f, kinds.count == 2 ? (kinds[0], kinds[1]) : (kinds[0], kinds[0])) {
            case (.add, (.date, let n)) where numeric.contains(n):
                return SQLExpression(node: .call(.dateShift(subtracting: false), [values[0].node, asNumber(values[1]).node]), kind: .date, nullable: false)
            case (.add, (let n, .date)) where numeric.contains(n):
                return SQLExpression(node: .call(.dateShift(subtracting: false), [values[1].node, asNumber(values[0]).node]), kind: .date, nullable: false)
            case (.subtract, (.date, let n)) where numeric.contains(n):
                return SQLExpression(node: .call(.dateShift(subtracting: true), [values[0].node, asNumber(values[1]).node]), kind: .date, nullable: false)
            case (.subtract, (.date, .date)):
                return SQLExpression(node: .call(.dateDifference, [values[0].node, values[1].node]), kind: .real, nullable: false)
            default:
                throw fail(.unsupported, "\(symbol) of a date has no PostgreSQL form in PQL",
                           hint: "dates take date + seconds, date - seconds and date - date; anything else raises in memory")
            }
        }
        guard kinds.allSatisfy(numeric.contains) else {
            throw fail(.unsupported, "\(symbol) of values that are not all numbers has no PostgreSQL form in PQL",
                       hint: "arithmetic takes integer, double and boolean attributes; on anything else it raises in memory")
        }
        let operation: NativeArithmetic
        switch f {
        case .add: operation = .add
        case .subtract: operation = .subtract
        case .multiply: operation = .multiply
        case .divide: operation = .divide
        case .modulus: operation = .modulus
        case .negate: operation = .negate
        default: operation = .abs
        }
        if kinds.contains(.real) {
            if operation == .modulus {
                throw fail(.unsupported, "% of doubles (modulus:by:) has no PostgreSQL form in PQL",
                           hint: "PostgreSQL has no exact fmod of doubles; use integers, or filter in memory")
            }
            let reals = values.map { x in x.kind == .real ? x : SQLExpression(node: .call(.asReal, [asNumber(x).node]), kind: .real, nullable: false) }
            return SQLExpression(node: .call(.realArithmetic(operation), reals.map(\.node)), kind: .real, nullable: false)
        }
        // The node last: where the installed function's overflow error points in the predicate.
        return SQLExpression(node: .call(.integerArithmetic(operation), values.map { asNumber($0).node } + [sourceNode]), kind: .integer, nullable: false)
    }

    /// A boolean as the integer 0 or 1 (the evaluator's `numeric`); other numbers as they are.
    private func asNumber(_ x: SQLExpression) -> SQLExpression {
        guard x.kind == .boolean else { return x }
        return SQLExpression(node: .call(.booleanAsInteger, [x.node]), kind: .integer, nullable: x.nullable)
    }

    /// `x`, raising the evaluator's own error where it is nil: the error `f` raises in memory
    /// when its operand `i` is nil and the others are values of their kinds.
    private mutating func requiringValue(_ x: SQLExpression, of f: BuiltinFunction, among operands: [SQLExpression], at i: Int) throws(StoreError) -> SQLExpression {
        guard x.canBeNil else { return x }
        var samples = operands.map { Self.sample(of: $0.kind) }
        samples[i] = .null
        let raised: PredicateEvaluationError?
        do { _ = try SharedSemantics.function(f, samples); raised = nil } catch { raised = error }
        guard let error = raised else {
            throw fail(.unsupported, "\(f.selector) of a value that can be nil has no PostgreSQL form in PQL",
                       hint: "test for nil first: x != nil AND …")
        }
        let node = SQLNode.call(.requireValue, [x.node, bindRaw(.text(error.kind.rawValue)), bindRaw(.text(error.message)),
                                                bindRaw(.text(error.hint ?? "")), sourceNode])
        return SQLExpression(node: node, kind: x.kind, nullable: false)
    }

    /// A value of `kind` to find the evaluator's error for a nil beside it.
    private static func sample(of kind: SQLKind) -> PredicateValue {
        switch kind {
        case .integer: return .int(1)
        case .real: return .double(1)
        case .boolean: return .bool(true)
        case .decimal: return .decimal(1)
        case .string: return .string("a")
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .data: return .data(Data())
        case .null, .unknown: return .null
        }
    }
}
