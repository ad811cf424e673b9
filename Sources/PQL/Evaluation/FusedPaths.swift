/// Shapes of several nodes compiled into one closure, for typed values: every closure level
/// costs a call through a context (tens of instructions), more than the comparisons it joins.
///
/// - `NOT (x == c)` and `NOT (x != c)` are the opposite comparison (`!=` is defined as the
///   negation of `==`, reference §6.3), so they take that comparison's fast path.
/// - An AND or OR of integer comparisons of one key (`age < 20 OR age > 60`) reads the key once
///   and tests the integer against each constant (on `[String: Any]`, one dictionary lookup
///   instead of one per comparison).
///
/// Each gives exactly what the nested closures give, errors included: on typed values neither
/// shape can raise one at run time, and on a dictionary any value but an `Int` goes to the
/// node's usual closure. Anything else returns nil and compiles as before.
enum FusedPaths {
    /// `NOT comparison`, as the opposite comparison's fast path.
    static func not<Root>(_ inner: PredicateNode, reader: ValueReader<Root>) -> PredicateStep<Root>? {
        // Typed values only: on a dictionary the fast path hands other kinds to a general
        // closure, whose errors would then name the opposite comparison.
        guard reader.rawKey == nil, case .comparison(var c) = inner, c.quantifier == .direct,
              c.op == .equal || c.op == .notEqual,
              case .keyPath = c.lhs, case .constant = c.rhs,
              let options = try? StringOptions(c.options) else { return nil }
        c.op = c.op == .equal ? .notEqual : .equal
        return (try? FastPaths.comparison(c, options: options, reader: reader)) ?? nil
    }

    /// An AND (`all`) or an OR of integer comparisons of one key against constants. On a
    /// typed value the key must be an integer accessor; on `[String: Any]` a stored `Int` is
    /// tested here and anything else goes to `general`, the node compiled the usual way.
    static func sameIntKey<Root>(_ operands: [PredicateNode], all: Bool, reader: ValueReader<Root>,
                                 general: @escaping PredicateFunction<Root>) -> PredicateStep<Root>? {
        guard operands.count >= 2 else { return nil }
        var key: String? = nil
        var tests: [IntTest] = []
        var nilResults: [Bool] = []
        for operand in operands {
            guard case .comparison(let c) = operand, c.quantifier == .direct, c.options.isEmpty,
                  case .keyPath(let path) = c.lhs, path.count == 1, !CollectionOperator.isOperator(path[0]),
                  key == nil || key == path[0],
                  case .constant(let constant) = c.rhs, !constant.isNull,
                  let test = IntTest(c.op, constant),
                  let whenNil = FastPaths.nilResult(c.op, constant, .literal) else { return nil }
            key = path[0]
            tests.append(test)
            nilResults.append(whenNil)
        }
        guard let key else { return nil }
        let whenNil = all ? !nilResults.contains(false) : nilResults.contains(true)
        if let rawKey = reader.rawKey {
            let raw = rawKey(key)
            return PredicateStep { root, state throws(EvalError) in
                guard let v = raw(root) else { return whenNil }
                guard case .int(let n) = StoredScalar(v) else { return try general(root, &state) }
                for t in tests where t(n) != all { return !all }
                return all
            }
        }
        guard case .int(let get)? = try? reader.key(key) else { return nil }
        if all {
            return PredicateStep { root, _ in
                guard let v = get(root) else { return whenNil }
                for t in tests where !t(v) { return false }
                return true
            }
        }
        return PredicateStep { root, _ in
            guard let v = get(root) else { return whenNil }
            for t in tests where t(v) { return true }
            return false
        }
    }
}
