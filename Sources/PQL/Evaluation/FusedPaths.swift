/// Shapes of several nodes compiled into one closure, for typed values: every closure level
/// costs a call through a context (tens of instructions), more than the comparisons it joins.
///
/// - `NOT (x == c)` and `NOT (x != c)` are the opposite comparison (`!=` is defined as the
///   negation of `==`, reference §6.1), so they take that comparison's fast path.
/// - An AND or OR of integer comparisons of one key (`age < 20 OR age > 60`) reads the key once
///   and tests the integer against each constant.
///
/// Each gives exactly what the nested closures give, errors included (neither shape can raise
/// one at run time); anything else returns nil and compiles as before.
enum FusedPaths {
    /// `NOT comparison`, as the opposite comparison's fast path.
    static func not<Root>(_ inner: PredicateNode, reader: ValueReader<Root>) -> PredicateStep<Root>? {
        guard case .comparison(var c) = inner, c.quantifier == .direct,
              c.op == .equal || c.op == .notEqual,
              case .keyPath = c.lhs, case .constant = c.rhs,
              let options = try? StringOptions(c.options) else { return nil }
        c.op = c.op == .equal ? .notEqual : .equal
        return (try? FastPaths.comparison(c, options: options, reader: reader)) ?? nil
    }

    /// An AND (`all`) or an OR of integer comparisons of one typed key against constants.
    static func sameIntKey<Root>(_ operands: [PredicateNode], all: Bool, reader: ValueReader<Root>) -> PredicateStep<Root>? {
        guard operands.count >= 2, reader.rawKey == nil else { return nil }
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
        guard let key, case .int(let get)? = try? reader.key(key) else { return nil }
        let whenNil = all ? !nilResults.contains(false) : nilResults.contains(true)
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
