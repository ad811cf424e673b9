import Foundation

/// Specialised closures for the commonest comparison shape — one key against a constant — that
/// read the key without building a ``PredicateValue``. Each path gives exactly what the general
/// path gives; anything else falls back (returns nil, or for dictionaries calls the general
/// closure for values of other types).
///
/// - Typed values (``PredicateReadable``): the key's typed accessor, compared directly.
/// - `[String: Any]` dictionaries: the raw `Any` is tested by type identity; `Int`, `Double`,
///   `String` and `[String]` values are compared directly, an absent key is nil, and any other
///   value goes through the general closure, so conversions and errors stay the general ones.
///
/// Each path is returned as a ``PredicateStep``, not as an optional closure: an `Optional` holds
/// a closure at the most general abstraction, so storing one and unwrapping it wrapped every
/// call of the fast path in two reabstraction thunks (a quarter of P3's instructions).
enum FastPaths {
    static func comparison<Root>(_ c: ComparisonNode, options: StringOptions,
                                 reader: ValueReader<Root>) throws(EvalError) -> PredicateStep<Root>? {
        guard case .keyPath(let path) = c.lhs, path.count == 1, !CollectionOperator.isOperator(path[0]),
              case .constant(let constant) = c.rhs else { return nil }
        if let rawKey = reader.rawKey {
            return try dictionary(c, rawKey(path[0]), constant, options, reader)
        }
        let accessor = try reader.key(path[0])
        if constant.isNull, c.quantifier == .direct, c.op == .equal || c.op == .notEqual {
            if case .string(let get) = accessor, let field = reader.storedField?(path[0]) {
                return lentNilTest(field, get, isNil: c.op == .equal)
            }
            return nilTest(accessor, isNil: c.op == .equal)
        }
        switch (accessor, c.quantifier) {
        case (.int(let get), .direct):
            guard let test = IntTest(c.op, constant), let whenNil = nilResult(c.op, constant, options) else { return nil }
            return PredicateStep { root, _ in
                if let v = get(root) { return test(v) }
                return whenNil
            }
        case (.double(let get), .direct):
            guard let test = DoubleTest(c.op, constant), let whenNil = nilResult(c.op, constant, options) else { return nil }
            return PredicateStep { root, _ in
                if let v = get(root) { return test(v) }
                return whenNil
            }
        case (.string(let get), .direct):
            guard let test = try StringTest(c.op, constant, options), let whenNil = nilResult(c.op, constant, options) else { return nil }
            if let field = reader.storedField?(path[0]) {
                if let literal = test.literal { return lentString(field, get, literal, whenNil) }
                // Other tests get a copy, loaded from where the element lies when it is lent.
                return PredicateStep { root, state throws(EvalError) in
                    guard let v = field.address(in: state).map({ field.loadString(at: $0) }) ?? get(root) else { return whenNil }
                    do throws(EvalError) { return try test(v) } catch { throw error.located(c.description) }
                }
            }
            return PredicateStep { root, _ throws(EvalError) in
                guard let v = get(root) else { return whenNil }
                do throws(EvalError) { return try test(v) } catch { throw error.located(c.description) }
            }
        case (.strings(let get), .any):
            // ANY tags == 'x' (literal): a scan without boxing; nil is false (reference §6.2).
            guard c.op == .equal, options.isLiteral, case .string(let s) = constant else { return nil }
            let bytes = LiteralBytes(s)
            if let field = reader.storedField?(path[0]) { return lentStrings(field, get, bytes) }
            return PredicateStep { root, _ in bytes.isElement(of: get(root)) }
        default:
            return nil
        }
    }

    /// `ANY tags == 'x'` on an array property searched where it lies in the element under test
    /// (``StoredField``), or read through the accessor's closure when no element is lent.
    private static func lentStrings<Root>(_ field: StoredField, _ get: @escaping @Sendable (Root) -> [String]?,
                                          _ bytes: LiteralBytes) -> PredicateStep<Root> {
        PredicateStep { root, state in
            guard let p = field.address(in: state) else { return bytes.isElement(of: get(root)) }
            if field.isOptional { return p.lendOptionalStrings { bytes.isElement(of: $0) } }
            return p.lendStrings { bytes.isElement(of: $0) }
        }
    }

    /// A literal test (``LiteralStringTest``) of a string property read where it lies in the
    /// element under test (``StoredField``), or through the accessor's closure when no element
    /// is lent.
    private static func lentString<Root>(_ field: StoredField, _ get: @escaping @Sendable (Root) -> String?,
                                         _ test: LiteralStringTest, _ whenNil: Bool) -> PredicateStep<Root> {
        PredicateStep { root, state in
            guard let p = field.address(in: state) else {
                guard let v = get(root) else { return whenNil }
                return test(v)
            }
            if field.isOptional {
                return p.lendOptionalString { v in
                    guard let v else { return whenNil }
                    return test(v)
                }
            }
            return p.lendString { test($0) }
        }
    }

    /// `x == nil` (`isNil`) or `x != nil` on a string property read where it lies: a `String`
    /// property is never nil, and a `String?` is looked at without a copy.
    private static func lentNilTest<Root>(_ field: StoredField, _ get: @escaping @Sendable (Root) -> String?,
                                          isNil: Bool) -> PredicateStep<Root> {
        PredicateStep { root, state in
            guard let p = field.address(in: state) else { return (get(root) == nil) == isNil }
            guard field.isOptional else { return !isNil }
            return p.lendOptionalString { $0 == nil } == isNil
        }
    }

    /// `x == nil` (`isNil`) or `x != nil` on a typed key.
    private static func nilTest<Root>(_ accessor: KeyAccessor<Root>, isNil: Bool) -> PredicateStep<Root>? {
        switch accessor {
        case .int(let get): return PredicateStep { root, _ in (get(root) == nil) == isNil }
        case .double(let get): return PredicateStep { root, _ in (get(root) == nil) == isNil }
        case .string(let get): return PredicateStep { root, _ in (get(root) == nil) == isNil }
        case .strings(let get): return PredicateStep { root, _ in (get(root) == nil) == isNil }
        case .value: return nil
        }
    }

    /// The result for a nil value: `apply` with `.null` on the left depends only on the
    /// operator and the constant. nil when that throws (then there is no fast path).
    static func nilResult(_ op: ComparisonOperator, _ constant: PredicateValue, _ options: StringOptions) -> Bool? {
        try? ComparisonEvaluation.apply(op, .null, constant, options, .none)
    }

    // MARK: Dictionaries

    /// `[String: Any]`: by the type of the stored value. The general closure is the one
    /// `EvaluatorCompiler` builds for this comparison without fast paths.
    private static func dictionary<Root>(_ c: ComparisonNode, _ raw: @escaping @Sendable (Root) -> Any?,
                                         _ constant: PredicateValue, _ options: StringOptions,
                                         _ reader: ValueReader<Root>) throws(EvalError) -> PredicateStep<Root>? {
        let general = try EvaluatorCompiler(reader: reader.withoutRawKeys, functions: .none).compile(c)
        if c.quantifier == .any {
            guard c.op == .equal, options.isLiteral, case .string(let s) = constant else { return nil }
            let bytes = LiteralBytes(s)
            return PredicateStep { root, state throws(EvalError) in
                guard let v = raw(root) else { return false }
                if case .strings(let a) = StoredScalar(v) { return bytes.isElement(of: a) }
                return try general(root, &state)
            }
        }
        guard c.quantifier == .direct, let whenNil = nilResult(c.op, constant, options) else { return nil }
        if constant.isNull {
            // x == nil / x != nil: any String, Int, Double or [String] is a non-nil value.
            guard c.op == .equal || c.op == .notEqual else { return nil }
            let whenValue = c.op == .notEqual
            return PredicateStep { root, state throws(EvalError) in
                guard let v = raw(root) else { return whenNil }
                if case .other = StoredScalar(v) { return try general(root, &state) }
                return whenValue
            }
        }
        let int = IntTest(c.op, constant), double = DoubleTest(c.op, constant)
        let string = try StringTest(c.op, constant, options)
        if int == nil && double == nil && string == nil { return nil }
        if let string, int == nil, double == nil {
            // A string constant (the common case): no optional tests to look at per value.
            return PredicateStep { root, state throws(EvalError) in
                guard let v = raw(root) else { return whenNil }
                if case .string(let s) = StoredScalar(v) {
                    do throws(EvalError) { return try string(s) } catch { throw error.located(c.description) }
                }
                return try general(root, &state)
            }
        }
        return PredicateStep { root, state throws(EvalError) in
            guard let v = raw(root) else { return whenNil }
            switch StoredScalar(v) {
            case .string(let s) where string != nil:
                // Only MATCHES throws (a runaway pattern); located as the general path locates it.
                do throws(EvalError) { return try string!(s) } catch { throw error.located(c.description) }
            case .int(let i) where int != nil: return int!(i)
            case .double(let d) where double != nil: return double!(d)
            default: return try general(root, &state)
            }
        }
    }
}

// MARK: - Value tests

/// An `Int` against an integer constant: the six relational operators and BETWEEN.
struct IntTest: Sendable {
    private enum Op: Sendable { case eq, ne, lt, le, gt, ge, between }
    private let op: Op
    private let c: Int
    private let hi: Int

    init?(_ op: ComparisonOperator, _ constant: PredicateValue) {
        if case .array(let bounds) = constant, op == .between, bounds.count == 2,
           case .int(var lo)? = bounds[0].numeric, case .int(var hi)? = bounds[1].numeric {
            // Bounds in reverse order are swapped, as the general path does.
            if lo > hi { swap(&lo, &hi) }
            guard let l = Int(exactly: lo), let h = Int(exactly: hi) else { return nil }
            (self.op, c, self.hi) = (.between, l, h)
            return
        }
        guard case .int(let c64)? = constant.numeric, let c = Int(exactly: c64) else { return nil }
        switch op {
        case .equal: self.op = .eq
        case .notEqual: self.op = .ne
        case .lessThan: self.op = .lt
        case .lessThanOrEqual: self.op = .le
        case .greaterThan: self.op = .gt
        case .greaterThanOrEqual: self.op = .ge
        default: return nil
        }
        self.c = c
        hi = c
    }

    @inline(__always)
    func callAsFunction(_ v: Int) -> Bool {
        switch op {
        case .eq: return v == c
        case .ne: return v != c
        case .lt: return v < c
        case .le: return v <= c
        case .gt: return v > c
        case .ge: return v >= c
        case .between: return v >= c && v <= hi
        }
    }
}

/// A `Double` against a constant it represents exactly (so the comparison is the general
/// one): `<`, `<=`, `>`, `>=`.
struct DoubleTest: Sendable {
    private enum Op: Sendable { case lt, le, gt, ge }
    private let op: Op
    private let d: Double

    init?(_ op: ComparisonOperator, _ constant: PredicateValue) {
        guard let n = constant.numeric, case let d = n.doubleValue, !d.isNaN,
              n.compare(.double(d)) == .orderedSame else { return nil }
        switch op {
        case .lessThan: self.op = .lt
        case .lessThanOrEqual: self.op = .le
        case .greaterThan: self.op = .gt
        case .greaterThanOrEqual: self.op = .ge
        default: return nil
        }
        self.d = d
    }

    @inline(__always)
    func callAsFunction(_ v: Double) -> Bool {
        switch op {
        case .lt: return v < d
        case .le: return v <= d
        case .gt: return v > d
        case .ge: return v >= d
        }
    }
}

/// A string constant's UTF-8, for literal (byte-wise) equality.
struct LiteralBytes: Sendable {
    let bytes: [UInt8]

    init(_ s: String) { bytes = Array(s.utf8) }

    /// Whether some element of `strings` equals the constant (`ANY tags == 'x'`). A loop of its
    /// own: `contains(where:)` from generic code paid for its closure on every element. Each
    /// element is read where it lies, moved out and back without a retain or a release
    /// (a `String` is bitwise-takable; see ``ElementBorrow``).
    @inline(__always)
    func isElement(of strings: [String]) -> Bool {
        strings.withUnsafeBufferPointer { b in isElement(in: b) }
    }

    /// ``isElement(of:)`` of an optional array: nil has no elements (`ANY` of nil is false).
    @inline(__always)
    func isElement(of strings: [String]?) -> Bool {
        guard let strings else { return false }
        return isElement(of: strings)
    }

    @inline(__always)
    private func isElement(in b: UnsafeBufferPointer<String>) -> Bool {
        guard let base = b.baseAddress else { return false }
        return withUnsafeTemporaryAllocation(of: String.self, capacity: 1) { slot in
            for i in 0..<b.count {
                let s = UnsafeMutablePointer(mutating: base + i).move()
                let found = equal(s)
                slot.baseAddress!.initialize(to: consume s)   // never deinitialized: the array owns it
                if found { return true }
            }
            return false
        }
    }

    /// `s.utf8.elementsEqual(constant.utf8)`: the lengths first, then one `memcmp`.
    @inline(__always)
    func equal(_ s: String) -> Bool {
        let n = bytes.count
        guard s.utf8.count == n else { return false }
        if n == 0 { return true }
        if let r = s.utf8.withContiguousStorageIfAvailable({ u in
            bytes.withUnsafeBufferPointer { b in memcmp(u.baseAddress!, b.baseAddress!, n) == 0 }
        }) {
            return r
        }
        return s.utf8.elementsEqual(bytes)
    }
}

/// The tests of ``StringTest`` that compare bytes and never throw: `==`, `!=` and `IN` a few
/// strings (a scan), without options. Only these are lent a string in place (``StoredField``).
struct LiteralStringTest: Sendable {
    enum Kind: Sendable {
        case equal(LiteralBytes)
        case notEqual(LiteralBytes)
        case fewMembers([LiteralBytes])
    }
    let kind: Kind

    @inline(__always)
    func callAsFunction(_ v: String) -> Bool {
        switch kind {
        case .equal(let b): return b.equal(v)
        case .notEqual(let b): return !b.equal(v)
        case .fewMembers(let members):
            for m in members where m.equal(v) { return true }
            return false
        }
    }
}

/// A `String` against a string constant (or a constant collection for IN), with the options.
struct StringTest: @unchecked Sendable {
    // @unchecked: LikePattern and RegexPattern are immutable after init.
    private enum Kind {
        /// `==`, `!=` and IN a few strings, without options: bytes compared.
        case literal(LiteralStringTest)
        /// BEGINSWITH / ENDSWITH / CONTAINS: the constant folded with the options, as a string
        /// for the general search and as bytes for the scalar-table fold.
        case search(ComparisonOperator, String, [UInt8], StringOptions)
        /// IN many strings: a hash lookup, then literal equality.
        case members(Set<String>)
        /// IN strings with `[c]`/`[d]`: the members folded once; the value folded and looked up.
        case foldedMembers(Set<PredicateValue>, StringOptions)
        case like(LikePattern)
        case regex(RegexPattern)
    }
    private let kind: Kind

    init?(_ op: ComparisonOperator, _ constant: PredicateValue, _ options: StringOptions) throws(EvalError) {
        guard !options.localized else { return nil }
        switch (op, constant) {
        case (.equal, .string(let s)) where options.isLiteral:
            kind = .literal(LiteralStringTest(kind: .equal(LiteralBytes(s))))
        case (.notEqual, .string(let s)) where options.isLiteral:
            kind = .literal(LiteralStringTest(kind: .notEqual(LiteralBytes(s))))
        case (.beginsWith, .string(let s)), (.endsWith, .string(let s)), (.contains, .string(let s)):
            let needle = options.prepare(s)
            kind = .search(op, needle, Array(needle.utf8), options)
        case (.in, .array(let a)), (.in, .set(let a)):
            // Only strings can be members; `[c]`/`[d]` apply to each comparison (decision D20).
            let strings = a.compactMap { v -> String? in if case .string(let s) = v { return s } else { return nil } }
            if !options.isLiteral {
                kind = .foldedMembers(Set(strings.map { .string(options.prepare($0)) }), options)
            } else {
                kind = strings.count <= 16 ? .literal(LiteralStringTest(kind: .fewMembers(strings.map(LiteralBytes.init))))
                                           : .members(Set(strings))
            }
        case (.like, .string(let s)):
            kind = .like(LikePattern(s, options: options))
        case (.matches, .string(let s)):
            kind = .regex(try RegexPattern(s, options: options))
        default:
            return nil
        }
    }

    /// The same test as a ``LiteralStringTest``, when it is one.
    var literal: LiteralStringTest? {
        if case .literal(let test) = kind { return test }
        return nil
    }

    @inline(__always)
    func callAsFunction(_ v: String) throws(EvalError) -> Bool {
        switch kind {
        case .literal(let test): return test(v)
        case .search(let op, let needle, let bytes, let options):
            if let r = FoldedSearch.test(op, subject: v, needle: bytes, options: options) { return r }
            return StringSearch.test(op, subject: v, preparedNeedle: needle, options: options)
        case .members(let members):
            return Self.literalMember(v, members)
        case .foldedMembers(let members, let options):
            return members.contains(.string(options.prepare(v)))
        case .like(let pattern): return pattern.matches(v)
        case .regex(let regex): return try regex.matches(v)
        }
    }

    /// Swift's String equality is canonical equivalence; membership must be literal.
    private static func literalMember(_ s: String, _ members: Set<String>) -> Bool {
        guard let i = members.firstIndex(of: s) else { return false }
        return members[i].utf8.elementsEqual(s.utf8) || members.contains { $0.utf8.elementsEqual(s.utf8) }
    }
}
