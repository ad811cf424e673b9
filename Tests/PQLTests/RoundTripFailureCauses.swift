import Foundation
import Testing
import PQL

/// Names the cause of a round-trip failure when the tree shows a known printer defect, so the
/// randomized tests group their failures by cause and a second bug cannot hide behind a
/// frequent first one. The failure is still a failure; this only labels it.
enum RoundTripFailureCauses {
    /// The label of the first known defect `tree` contains, or "unclassified".
    static func classify(_ tree: PredicateNode) -> String {
        var found: String?
        visit(tree) { e in if found == nil { found = cause(at: e) } }
        return found ?? "unclassified"
    }

    static func classify(_ tree: ExpressionNode) -> String {
        var found: String?
        visit(tree) { e in if found == nil { found = cause(at: e) } }
        return found ?? "unclassified"
    }

    /// The label for a tree whose printed text prints differently once reparsed.
    static func classifyInstability(_ tree: PredicateNode) -> String {
        var found = false
        visit(tree) { e in if isNegativeNaN(e) { found = true } }
        return found ? negativeNaN : "printer: printing is not stable"
    }

    static func classifyInstability(_ tree: ExpressionNode) -> String {
        var found = false
        visit(tree) { e in if isNegativeNaN(e) { found = true } }
        return found ? negativeNaN : "printer: printing is not stable"
    }

    /// The label for printed text the parser rejects.
    static func classifyUnparsable(_ error: PredicateFormatError) -> String {
        error.kind == .nestingTooDeep ? nestingLimit : "printer: printed text does not parse"
    }

    /// A NaN with the sign bit set prints in parentheses where negative numbers need them
    /// (`(CAST("nan", "NSNumber")).x`); it reads back as a plain NaN, which prints without.
    static let negativeNaN = "printer: a negative NaN prints parentheses that its reparse drops"

    /// Parentheses the printer adds count toward the parser's nesting limit of 128, so long
    /// operator chains that parse print as text that does not.
    static let nestingLimit = "printer+parser: printed parentheses exceed the nesting limit"

    private static func isNegativeNaN(_ e: ExpressionNode) -> Bool {
        if case .constant(.double(let d)) = e { return d.isNaN && d.sign == .minus }
        return false
    }

    /// `-` before an index or key path whose base is a number literal printed without
    /// parentheses: `.function(.negate, [.index(.constant(5), .first)])` prints `-5[FIRST]`,
    /// which reads back as `(-5)[FIRST]` because a minus before a number literal folds.
    static let negatedPostfixOnNumber = "printer: negate of a postfix on a number prints as a negative literal"

    private static func cause(at e: ExpressionNode) -> String? {
        if case .function(.negate, let args) = e, args.count == 1 {
            switch args[0] {
            case .index, .keyPathOn:
                if startsWithBareNumber(args[0]) { return negatedPostfixOnNumber }
            default: break
            }
        }
        return nil
    }

    /// Whether the printed form of `e` starts with the digits of a number literal.
    private static func startsWithBareNumber(_ e: ExpressionNode) -> Bool {
        switch e {
        case .constant(.bool): return true
        case .constant(.int(let i)): return i >= 0
        case .constant(.double(let d)): return d.isFinite && d.sign == .plus
        case .index(let base, _):
            // An index base is parenthesised only if it is an operator, assignment or negative.
            return startsWithBareNumber(base)
        case .keyPathOn(let base, _):
            switch base {
            case .keyPath, .keyPathOn: return false   // printed in parentheses
            default: return startsWithBareNumber(base)
            }
        default: return false
        }
    }

    // MARK: - Structure

    /// The tree's cases, not its text: `not(cmp(any keyPath[a] == const(int 1)))`.
    static func structure(_ p: PredicateNode) -> String {
        switch p {
        case .constant(let b): return b ? "true" : "false"
        case .comparison(let c):
            let q = c.quantifier == .direct ? "" : (c.quantifier == .any ? "any " : "all ")
            return "cmp(\(q)\(structure(c.lhs)) \(c.op.symbol)\(c.options.suffix) \(structure(c.rhs)))"
        case .and(let ps): return "and(" + ps.map(structure).joined(separator: ", ") + ")"
        case .or(let ps): return "or(" + ps.map(structure).joined(separator: ", ") + ")"
        case .not(let q): return "not(\(structure(q)))"
        }
    }

    static func structure(_ e: ExpressionNode) -> String {
        switch e {
        case .constant(let v): return "const(\(structure(v)))"
        case .evaluatedObject: return "self"
        case .variable(let n): return "var(\(n.debugDescription))"
        case .keyPath(let p): return "keyPath\(p)"
        case .keyPathOn(let b, let p): return "keyPathOn(\(structure(b)), \(p))"
        case .aggregate(let items): return "aggregate(" + items.map(structure).joined(separator: ", ") + ")"
        case .function(let f, let args): return "\(f)(" + args.map(structure).joined(separator: ", ") + ")"
        case .index(let b, let sub):
            let s: String
            switch sub {
            case .first: s = "first"
            case .last: s = "last"
            case .size: s = "size"
            case .expression(let i): s = structure(i)
            }
            return "index(\(structure(b)), \(s))"
        case .customFunction(let t, let sel, let args):
            return "customFunction(\(structure(t)), \(sel.debugDescription)" + args.map { ", " + structure($0) }.joined() + ")"
        case .cast(let v, let t): return "cast(\(structure(v)), \(structure(t)))"
        case .ternary(let p, let a, let b): return "ternary(\(structure(p)), \(structure(a)), \(structure(b)))"
        case .subquery(let c, let v, let p): return "subquery(\(structure(c)), \(v.debugDescription), \(structure(p)))"
        case .assignment(let v, let x): return "assign(\(v.debugDescription), \(structure(x)))"
        case .setOperation(let op, let a, let b): return "\(op)(\(structure(a)), \(structure(b)))"
        case .anyKey: return "anyKey"
        }
    }

    static func structure(_ v: PredicateValue) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return "bool \(b)"
        case .int(let i): return "int \(i)"
        case .double(let d): return "double \(d)"
        case .decimal(let d): return "decimal \(d)"
        case .string(let s): return "string \(s.debugDescription)"
        case .date(let d): return "date \(d.timeIntervalSinceReferenceDate)"
        case .data(let d): return "data \(Array(d))"
        case .array(let a): return "[" + a.map(structure).joined(separator: ", ") + "]"
        case .set(let a): return "set[" + a.map(structure).joined(separator: ", ") + "]"
        case .dictionary(let d):
            return "dict[" + d.keys.sorted().map { "\($0.debugDescription): \(structure(d[$0]!))" }.joined(separator: ", ") + "]"
        }
    }

    // MARK: - Walking trees

    static func visit(_ p: PredicateNode, _ f: (ExpressionNode) -> Void) {
        switch p {
        case .constant: break
        case .comparison(let c): visit(c.lhs, f); visit(c.rhs, f)
        case .and(let ps), .or(let ps): for q in ps { visit(q, f) }
        case .not(let q): visit(q, f)
        }
    }

    static func visit(_ e: ExpressionNode, _ f: (ExpressionNode) -> Void) {
        f(e)
        switch e {
        case .constant, .evaluatedObject, .variable, .keyPath, .anyKey: break
        case .keyPathOn(let base, _): visit(base, f)
        case .aggregate(let items): for i in items { visit(i, f) }
        case .function(_, let args): for a in args { visit(a, f) }
        case .index(let base, let sub):
            visit(base, f)
            if case .expression(let i) = sub { visit(i, f) }
        case .customFunction(let target, _, let args): visit(target, f); for a in args { visit(a, f) }
        case .cast(let v, let t): visit(v, f); visit(t, f)
        case .ternary(let p, let a, let b): visit(p, f); visit(a, f); visit(b, f)
        case .subquery(let c, _, let p): visit(c, f); visit(p, f)
        case .assignment(_, let v): visit(v, f)
        case .setOperation(_, let a, let b): visit(a, f); visit(b, f)
        }
    }
}

/// Collects the failures of a randomized test, grouped by cause: the first few of each cause
/// become separate issues with their seed and case, then one summary line per cause, so a
/// systematic bug does not bury the output. `PQL_SHOW_ALL_FAILURES=1` shows every failure.
struct RandomTestFailureLog {
    let title: String
    let seed: UInt64
    private(set) var count = 0
    private var byCause: [String: (count: Int, shown: [String])] = [:]
    private var causeOrder: [String] = []
    let maxShownPerCause = ProcessInfo.processInfo.environment["PQL_SHOW_ALL_FAILURES"] == nil ? 4 : Int.max

    init(title: String, seed: UInt64) {
        self.title = title
        self.seed = seed
    }

    mutating func record(case index: Int, cause: String = "unclassified", _ message: String) {
        count += 1
        if byCause[cause] == nil { byCause[cause] = (0, []); causeOrder.append(cause) }
        byCause[cause]!.count += 1
        if byCause[cause]!.shown.count < maxShownPerCause {
            byCause[cause]!.shown.append("[\(title), seed 0x\(String(seed, radix: 16)), case \(index)] [\(cause)] \(message)")
        }
    }

    func report(sourceLocation: SourceLocation = #_sourceLocation) {
        for cause in causeOrder {
            let entry = byCause[cause]!
            for m in entry.shown { Issue.record(Comment(rawValue: m), sourceLocation: sourceLocation) }
            Issue.record("\(title): \(entry.count) failure(s) caused by [\(cause)] with seed 0x\(String(seed, radix: 16))",
                         sourceLocation: sourceLocation)
        }
    }
}

/// The two kinds of tree, for the one round-trip check both property suites use.
protocol RoundTripTree: Equatable, CustomStringConvertible {
    init(format: String, argumentArray: [Any?]) throws(PredicateFormatError)
    /// The likely cause when the reparsed tree differs.
    var differenceCause: String { get }
    /// The likely cause when the reprinted text differs.
    var instabilityCause: String { get }
    var structure: String { get }
}

extension PredicateNode: RoundTripTree {
    var differenceCause: String { RoundTripFailureCauses.classify(self) }
    var instabilityCause: String { RoundTripFailureCauses.classifyInstability(self) }
    var structure: String { RoundTripFailureCauses.structure(self) }
}

extension ExpressionNode: RoundTripTree {
    var differenceCause: String { RoundTripFailureCauses.classify(self) }
    var instabilityCause: String { RoundTripFailureCauses.classifyInstability(self) }
    var structure: String { RoundTripFailureCauses.structure(self) }
}

extension RoundTripFailureCauses {
    /// What went wrong: a cause to group failures by, and the details.
    typealias Problem = (cause: String, message: String)

    /// Nil if `tree` prints to text that parses to an equal tree which prints the same again
    /// (decision D9); otherwise what went wrong.
    static func roundTrip<T: RoundTripTree>(_ tree: T) -> Problem? {
        let printed = tree.description
        let again: T
        do { again = try T(format: printed, argumentArray: []) } catch {
            return (classifyUnparsable(error),
                    "\(error.message) at byte \(error.range.offset)\n  printed: \(printed)\n  tree:    \(tree.structure)")
        }
        if again != tree {
            return (tree.differenceCause,
                    "reparsed tree differs\n  printed:  \(printed)\n  tree:     \(tree.structure)\n  reparsed: \(again.structure)")
        }
        if again.description != printed {
            return (tree.instabilityCause, "printed:   \(printed)\n  reprinted: \(again.description)\n  tree:      \(tree.structure)")
        }
        return nil
    }
}
