import CSQLite
import Foundation
import PQL

/// The SQLite functions and collations PQL registers on every connection. Each one calls the
/// in-memory evaluator's own code (through `SharedSemantics`), so a predicate run in SQL gives
/// the rows memory gives (decision D3): string options, LIKE, MATCHES, ordering across kinds,
/// the nil rules, arithmetic and the functions.
///
/// Operands arrive with a kind tag, because SQLite stores dates, booleans and decimals as plain
/// numbers: `0` as stored, `1` boolean, `2` date, `3` decimal; plus `8` for a `pql_fn` result, whose NULL is NaN.
///
/// The functions that can raise take, as their last argument, the index of the node they
/// compute in the query's ``SourceMap`` (`-1` when unknown): their errors carry it, so that the
/// store points at the sub-expression that failed, where memory's error points.
enum SQLiteFunctions {
    /// Prefix of error messages raised inside these functions, so the connection reports them
    /// as evaluation errors rather than as SQLite failures.
    static let errorPrefix = "pql: "

    /// Registers the functions and collations on a new connection; a failure (out of memory,
    /// a name SQLite refuses) is an error rather than a connection that lacks them.
    static func register(on db: OpaquePointer) throws(StoreError) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        let functions: [(String, Int32, Int32, @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)] = [
            ("pql_compare", 7, flags, compareFunction),
            ("pql_between", 8, flags, betweenFunction),
            ("pql_search", 5, flags, searchFunction),
            ("pql_search", 7, flags, searchFunction),
            // Not deterministic: SQLite must call it, and so evaluate its arguments, on every row.
            ("pql_decided", -1, SQLITE_UTF8, decidedFunction),
            ("pql_prefix_ci", 4, flags, prefixFunction),
            ("pql_fn", -1, SQLITE_UTF8, functionFunction),
            ("pql_cast", 4, flags, castFunction),
            ("pql_fold", 2, flags, foldFunction),
            ("pql_values", -1, flags, valuesFunction),
        ]
        for (name, arity, functionFlags, body) in functions {
            let rc = sqlite3_create_function_v2(db, name, arity, functionFlags, nil, body, nil, nil, nil)
            guard rc == SQLITE_OK else { throw registrationError(name, rc, db) }
        }
        for (i, operation) in SharedSemantics.Aggregate.Operation.allCases.enumerated() {
            // The operation travels as the function's user data: xFinal has no arguments, and
            // an empty collection's result depends on it.
            // (value, kind tag, 0, node): the aggregate over a to-many relationship's values.
            let name = aggregateName(operation)
            let rc = sqlite3_create_function_v2(db, name, 4, flags, UnsafeMutableRawPointer(bitPattern: i + 1),
                                                nil, aggregateStep, aggregateFinal, nil)
            guard rc == SQLITE_OK else { throw registrationError(name, rc, db) }
            // The three-argument form (value, kind tag, 1) is the grouped fetch's: nils are
            // skipped and a group with no value gives nil, as SQL's and Core Data's grouped
            // aggregates do (GroupQuery's decision); the user data says so to xFinal.
            let grouped = sqlite3_create_function_v2(db, name, 3, flags, UnsafeMutableRawPointer(bitPattern: i + 1 + groupedAggregateOffset),
                                                     nil, aggregateStep, aggregateFinal, nil)
            guard grouped == SQLITE_OK else { throw registrationError(name, grouped, db) }
        }
        let collations: [(String, @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32)] = [
            ("PQL_NOCASE", nocaseCollation), ("PQL_LOCALIZED", localizedCollation),
        ]
        for (name, compare) in collations {
            let rc = sqlite3_create_collation_v2(db, name, SQLITE_UTF8, nil, compare, nil)
            guard rc == SQLITE_OK else { throw registrationError(name, rc, db) }
        }
    }

    private static func registrationError(_ name: String, _ rc: Int32, _ db: OpaquePointer) -> StoreError {
        StoreError(.sqlite, "SQLite refused PQL's SQL function \(name) (\(String(cString: sqlite3_errstr(rc))))",
                   hint: "PQL needs SQLite 3.31 or later built with user-defined functions")
    }

    /// The SQL name of the aggregate that computes `operation` (value, kind tag, 0, node) → value.
    static func aggregateName(_ operation: SharedSemantics.Aggregate.Operation) -> String {
        switch operation {
        case .sumOperator: return "pql_sum"
        case .averageOperator: return "pql_avg"
        case .minOperator: return "pql_min"
        case .maxOperator: return "pql_max"
        case .sum: return "pql_sum_function"
        case .average: return "pql_average_function"
        case .min: return "pql_min_function"
        case .max: return "pql_max_function"
        }
    }

    // MARK: values

    static func value(_ v: OpaquePointer?, kind tag: Int32 = 0) -> PredicateValue {
        let stored = sqlValue(v)
        // Tag + 8: the operand is a pql_fn result, whose NULL is NaN (SQLite stores no NaN).
        if stored == .null && tag & 8 != 0 { return .double(.nan) }
        let v = SQLKind(tag: tag & 7).value(stored)
        // Tag + 16: an object, stored as its key. Its entity was checked when compiling.
        if tag & 16 != 0, !v.isNull { return ObjectID.anonymous(key: v) }
        return v
    }

    /// A function argument as SQLite holds it.
    static func sqlValue(_ v: OpaquePointer?) -> SQLValue {
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(v))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(v))
        case SQLITE_TEXT: return .text(text(v))
        case SQLITE_BLOB:
            let n = Int(sqlite3_value_bytes(v))
            guard n > 0, let p = sqlite3_value_blob(v) else { return .blob(Data()) }
            return .blob(Data(bytes: p, count: n))
        default: return .null
        }
    }

    static func text(_ v: OpaquePointer?) -> String {
        guard let p = sqlite3_value_text(v) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(v))), as: UTF8.self)
    }

    static func result(_ ctx: OpaquePointer?, _ v: PredicateValue) {
        switch SQLValue(v) {
        case nil: fail(ctx, "a collection value has no SQL form here")
        case .null?: sqlite3_result_null(ctx)
        case .integer(let i)?: sqlite3_result_int64(ctx, i)
        case .real(let d)?: sqlite3_result_double(ctx, d)
        case .text(let s)?:
            // By length, not as a C string: a NUL inside the text must not cut it short.
            var t = s
            t.withUTF8 { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else { return sqlite3_result_text(ctx, "", 0, sqliteTransient) }
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_result_text64(ctx, $0, sqlite3_uint64(buffer.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let d)?:
            if d.isEmpty { return sqlite3_result_zeroblob(ctx, 0) }
            d.withUnsafeBytes { sqlite3_result_blob64(ctx, $0.baseAddress, sqlite3_uint64($0.count), sqliteTransient) }
        }
    }

    static func fail(_ ctx: OpaquePointer?, _ message: String) {
        sqlite3_result_error(ctx, errorPrefix + message, -1)
    }

    /// Separates the kind, message and hint of an evaluation error inside SQLite's error text.
    static let errorSeparator: Character = "\u{1F}"

    /// Raises the evaluator's error from inside SQLite, kind, message and hint intact, with the
    /// source-map node of the call that raised it (`node`, from the call's last argument): the
    /// connection turns it back into the same `PredicateEvaluationError` (see `evaluationError(_:)`).
    static func fail(_ ctx: OpaquePointer?, _ error: any Error, node: OpaquePointer?) {
        fail(ctx, error, node: node.map { Int(sqlite3_value_int64($0)) } ?? -1)
    }

    /// ``fail(_:_:node:)`` with the node's index.
    static func fail(_ ctx: OpaquePointer?, _ error: any Error, node: Int) {
        guard let error = error as? PredicateEvaluationError else { return fail(ctx, "\(error)") }
        let parts = [error.kind.rawValue, error.message, error.hint ?? "", String(node)]
        fail(ctx, parts.joined(separator: String(errorSeparator)))
    }

    /// The evaluator's error that an SQLite error message carries, if it carries one, and the
    /// source-map node of the call that raised it, when known.
    static func evaluationError(_ sqliteMessage: String) -> (error: PredicateEvaluationError, node: Int?)? {
        guard sqliteMessage.hasPrefix(errorPrefix) else {
            // SQLite's own sum() raises this; PQL's statements use pql_sum, but a hand-written
            // view or trigger may not.
            if sqliteMessage == "integer overflow" {
                return (PredicateEvaluationError(kind: .integerOverflow, message: "integer overflow: a sum does not fit in 64 bits",
                                                 hint: "compute in floating point: multiply an operand by 1.0"), nil)
            }
            return nil
        }
        let text = sqliteMessage.dropFirst(errorPrefix.count)
        let parts = text.split(separator: errorSeparator, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let kind = PredicateEvaluationError.Kind(rawValue: String(parts[0])) else {
            return (PredicateEvaluationError(kind: .unsupported, message: String(text)), nil)
        }
        let node = Int(parts[3]).flatMap { $0 >= 0 ? $0 : nil }
        return (PredicateEvaluationError(kind: kind, message: String(parts[1]), hint: parts[2].isEmpty ? nil : String(parts[2])), node)
    }

    static func options(_ v: OpaquePointer?) throws(PredicateEvaluationError) -> SharedSemantics.Options {
        try SharedSemantics.Options(rawValue: Int(sqlite3_value_int64(v)))
    }

    static func comparisonOperator(_ v: OpaquePointer?) -> ComparisonOperator? {
        ComparisonOperator(rawValue: Int(sqlite3_value_int64(v)))
    }
}

// MARK: pql_compare(op, flags, a, aKind, b, bKind, node) → 0 / 1

private let compareFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
    guard let argv, let op = SQLiteFunctions.comparisonOperator(argv[0]) else { return SQLiteFunctions.fail(ctx, "bad operator") }
    do {
        let options = try SQLiteFunctions.options(argv[1])
        // Two strings: the common case, without building values.
        if sqlite3_value_type(argv[2]) == SQLITE_TEXT, sqlite3_value_type(argv[4]) == SQLITE_TEXT,
           op == .equal || op == .notEqual {
            let eq = try SharedSemantics.equal(SQLiteFunctions.text(argv[2]), SQLiteFunctions.text(argv[4]), options)
            return sqlite3_result_int(ctx, eq == (op == .equal) ? 1 : 0)
        }
        let l = SQLiteFunctions.value(argv[2], kind: Int32(sqlite3_value_int(argv[3])))
        let r = SQLiteFunctions.value(argv[4], kind: Int32(sqlite3_value_int(argv[5])))
        sqlite3_result_int(ctx, try SharedSemantics.apply(op, l, r, options) ? 1 : 0)
    } catch {
        SQLiteFunctions.fail(ctx, error, node: argv[6])
    }
}

// MARK: pql_between(flags, x, xKind, lo, loKind, hi, hiKind, node) → 0 / 1

private let betweenFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
    guard let argv else { return }
    do {
        let options = try SQLiteFunctions.options(argv[0])
        let x = SQLiteFunctions.value(argv[1], kind: sqlite3_value_int(argv[2]))
        let lo = SQLiteFunctions.value(argv[3], kind: sqlite3_value_int(argv[4]))
        let hi = SQLiteFunctions.value(argv[5], kind: sqlite3_value_int(argv[6]))
        sqlite3_result_int(ctx, try SharedSemantics.apply(.between, x, .array([lo, hi]), options) ? 1 : 0)
    } catch {
        SQLiteFunctions.fail(ctx, error, node: argv[7])
    }
}

// MARK: pql_search(op, flags, subject, pattern[, subjectKind, patternKind], node) → 0 / 1  (BEGINSWITH ENDSWITH CONTAINS LIKE MATCHES)

/// The compiled pattern lives in SQLite's auxiliary data for the pattern argument, so a
/// regex or folded needle is built once per statement, not once per row.
private final class PreparedBox {
    let prepared: SharedSemantics.PreparedString
    init(_ p: SharedSemantics.PreparedString) { prepared = p }
}

private let releaseBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { p in
    if let p { Unmanaged<PreparedBox>.fromOpaque(p).release() }
}

private let searchFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, argc, argv in
    guard let argv, let op = SQLiteFunctions.comparisonOperator(argv[0]) else { return SQLiteFunctions.fail(ctx, "bad operator") }
    let node = argv[Int(argc) - 1]
    do {
        let options = try SQLiteFunctions.options(argv[1])
        let tags = argc == 7 ? (sqlite3_value_int(argv[4]), sqlite3_value_int(argv[5])) : (0, 0)
        SQLiteFunctions.search(ctx, op, options, subject: argv[2], pattern: argv[3], patternArgument: 3, tags: tags, node: node)
    } catch {
        SQLiteFunctions.fail(ctx, error, node: node)
    }
}

extension SQLiteFunctions {
    /// `subject op[options] pattern` with the prepared pattern kept in the aux data of
    /// argument `patternArgument`.
    static func search(_ ctx: OpaquePointer?, _ op: ComparisonOperator, _ options: SharedSemantics.Options,
                       subject: OpaquePointer?, pattern: OpaquePointer?, patternArgument: Int32, tags: (Int32, Int32) = (0, 0),
                       node: OpaquePointer?) {
        do {
            guard sqlite3_value_type(subject) == SQLITE_TEXT, sqlite3_value_type(pattern) == SQLITE_TEXT else {
                // nil gives false; other kinds raise the evaluator's own error.
                let s = value(subject, kind: tags.0), p = value(pattern, kind: tags.1)
                return sqlite3_result_int(ctx, try SharedSemantics.apply(op, s, p, options) ? 1 : 0)
            }
            let box: PreparedBox
            if let p = sqlite3_get_auxdata(ctx, patternArgument) {
                box = Unmanaged<PreparedBox>.fromOpaque(p).takeUnretainedValue()
            } else {
                box = PreparedBox(try SharedSemantics.PreparedString(op, text(pattern), options))
                sqlite3_set_auxdata(ctx, patternArgument, Unmanaged.passRetained(box).toOpaque(), releaseBox)
            }
            let p = sqlite3_value_text(subject), n = Int(sqlite3_value_bytes(subject))
            let text = UnsafeBufferPointer(start: p, count: p == nil ? 0 : n)
            sqlite3_result_int(ctx, try box.prepared.test(utf8: text) ? 1 : 0)
        } catch {
            fail(ctx, error, node: node)
        }
    }
}

// MARK: pql_prefix_ci(subject, folded, needle, node) → 0 / 1  (BEGINSWITH[c] with an ASCII fold)

/// `subject BEGINSWITH[c] needle` where `folded`, the needle's fold, is ASCII: decided on the
/// subject's first bytes when they are ASCII (a match followed by nothing or by a scalar below
/// U+0300, which cannot combine with it, is certain; an ASCII mismatch is certain, since no
/// later scalar can turn an ASCII letter into another one), through the shared search
/// otherwise. One cheap call per row, for columns no index serves.
private let prefixFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
    guard let argv else { return }
    if sqlite3_value_type(argv[0]) == SQLITE_TEXT, let s = sqlite3_value_text(argv[0]), let q = sqlite3_value_text(argv[1]) {
        let n = Int(sqlite3_value_bytes(argv[0])), k = Int(sqlite3_value_bytes(argv[1]))
        var i = 0
        while i < k {
            if i == n { return sqlite3_result_int(ctx, 0) }
            let b = s[i]
            if b >= 0x80 { break }
            if (b >= 0x41 && b <= 0x5A ? b | 0x20 : b) != q[i] { return sqlite3_result_int(ctx, 0) }
            i += 1
        }
        // U+0300 is the first scalar whose UTF-8 starts with 0xCC.
        if i == k && (n == k || s[k] < 0xCC) { return sqlite3_result_int(ctx, 1) }
    }
    guard let options = caseInsensitive else { return SQLiteFunctions.fail(ctx, "bad options") }
    SQLiteFunctions.search(ctx, .beginsWith, options, subject: argv[0], pattern: argv[2], patternArgument: 2, node: argv[3])
}

private let caseInsensitive = try? SharedSemantics.Options(.caseInsensitive)

// MARK: pql_fn(selector, a, aKind, b, bKind, …, node) → value

private let functionFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, argc, argv in
    guard let argv, argc >= 1, let f = BuiltinFunction(rawValue: SQLiteFunctions.text(argv[0])) else {
        return SQLiteFunctions.fail(ctx, "unknown function")
    }
    var args: [PredicateValue] = []
    var i = 1
    while i + 2 < Int(argc) {
        args.append(SQLiteFunctions.value(argv[i], kind: sqlite3_value_int(argv[i + 1])))
        i += 2
    }
    do {
        SQLiteFunctions.result(ctx, try SharedSemantics.function(f, args))
    } catch {
        SQLiteFunctions.fail(ctx, error, node: argv[Int(argc) - 1])
    }
}

// MARK: pql_sum(value, kind, 0, node) … pql_max_function(value, kind, 0, node): the aggregates over a to-many

/// The running state of one aggregate call, kept behind a pointer in SQLite's aggregate
/// context: SQLite calls xFinal for every context it allocated (also when a statement is
/// interrupted or reset), which releases it. The first error is kept and raised by xFinal,
/// as the evaluator raises at the first element that fails.
private final class AggregateBox {
    var aggregate: SharedSemantics.Aggregate
    var error: PredicateEvaluationError?
    /// The source-map node of the call (its last argument), for the error xFinal raises.
    var node = -1
    init(_ aggregate: SharedSemantics.Aggregate) { self.aggregate = aggregate }
}

/// Added to the user data of the grouped (three-argument) form of each aggregate.
private let groupedAggregateOffset = 1_000

private func skipsNil(_ ctx: OpaquePointer?) -> Bool { Int(bitPattern: sqlite3_user_data(ctx)) > groupedAggregateOffset }

private func aggregateOperation(_ ctx: OpaquePointer?) -> SharedSemantics.Aggregate.Operation? {
    let i = (Int(bitPattern: sqlite3_user_data(ctx)) - 1) % groupedAggregateOffset
    let all = SharedSemantics.Aggregate.Operation.allCases
    return i >= 0 && i < all.count ? all[all.index(all.startIndex, offsetBy: i)] : nil
}

private let aggregateStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, argc, argv in
    guard let argv, let operation = aggregateOperation(ctx) else { return SQLiteFunctions.fail(ctx, "bad aggregate") }
    // A skipped nil allocates nothing: xFinal then finds no context and gives nil.
    if skipsNil(ctx), sqlite3_value_type(argv[0]) == SQLITE_NULL { return }
    guard let slot = sqlite3_aggregate_context(ctx, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)) else {
        return sqlite3_result_error_nomem(ctx)
    }
    let pointer = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    let box: AggregateBox
    if let p = pointer.pointee {
        box = Unmanaged<AggregateBox>.fromOpaque(p).takeUnretainedValue()
    } else {
        box = AggregateBox(SharedSemantics.Aggregate(operation))
        if argc == 4 { box.node = Int(sqlite3_value_int64(argv[3])) }
        pointer.pointee = Unmanaged.passRetained(box).toOpaque()
    }
    guard box.error == nil else { return }
    do throws(PredicateEvaluationError) {
        try box.aggregate.add(SQLiteFunctions.value(argv[0], kind: sqlite3_value_int(argv[1])))
    } catch {
        box.error = error
    }
}

private let aggregateFinal: @convention(c) (OpaquePointer?) -> Void = { ctx in
    guard let operation = aggregateOperation(ctx) else { return SQLiteFunctions.fail(ctx, "bad aggregate") }
    var aggregate = SharedSemantics.Aggregate(operation)
    var failure: PredicateEvaluationError? = nil
    var node = -1
    if let slot = sqlite3_aggregate_context(ctx, 0),
       let p = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee {
        let box = Unmanaged<AggregateBox>.fromOpaque(p).takeRetainedValue()
        aggregate = box.aggregate
        failure = box.error
        node = box.node
    } else if skipsNil(ctx) {
        return sqlite3_result_null(ctx)
    }
    do {
        if let failure { throw failure }
        SQLiteFunctions.result(ctx, try aggregate.result())
    } catch {
        SQLiteFunctions.fail(ctx, error, node: node)
    }
}

// MARK: pql_values(name, a, aKind, b, bKind, …, node) → an aggregate of the values ({a, b}.@sum, sum:({a, b}))

private let valuesFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, argc, argv in
    guard let argv, argc >= 1 else { return SQLiteFunctions.fail(ctx, "bad aggregate") }
    let name = SQLiteFunctions.text(argv[0])
    var values: [PredicateValue] = []
    var i = 1
    while i + 2 < Int(argc) {
        values.append(SQLiteFunctions.value(argv[i], kind: sqlite3_value_int(argv[i + 1])))
        i += 2
    }
    do {
        if name == "@count" { return sqlite3_result_int64(ctx, Int64(values.count)) }
        if let operation = SharedSemantics.Aggregate.Operation(rawValue: name) {
            var aggregate = SharedSemantics.Aggregate(operation)
            for v in values { try aggregate.add(v) }
            return SQLiteFunctions.result(ctx, try aggregate.result())
        }
        guard let f = BuiltinFunction(rawValue: name) else { return SQLiteFunctions.fail(ctx, "unknown aggregate") }
        SQLiteFunctions.result(ctx, try SharedSemantics.function(f, [.array(values)]))
    } catch {
        SQLiteFunctions.fail(ctx, error, node: argv[Int(argc) - 1])
    }
}

// MARK: pql_decided(result, operand, …) → result, after SQLite evaluated the operands

private let decidedFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, argc, argv in
    guard let argv, argc >= 1 else { return sqlite3_result_int(ctx, 0) }
    sqlite3_result_int(ctx, sqlite3_value_int(argv[0]))
}

// MARK: pql_fold(flags, value) → the [c]/[d] fold of a string; other values unchanged

private let foldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
    guard let argv else { return }
    guard sqlite3_value_type(argv[1]) == SQLITE_TEXT else { return sqlite3_result_value(ctx, argv[1]) }
    do {
        let options = try SQLiteFunctions.options(argv[0])
        SQLiteFunctions.result(ctx, .string(options.fold(SQLiteFunctions.text(argv[1]))))
    } catch {
        // Only options the compiler never makes fail here: no node to point at.
        SQLiteFunctions.fail(ctx, error, node: -1)
    }
}

// MARK: pql_cast(value, kind, type, node) → value

private let castFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
    guard let argv else { return }
    do {
        let v = SQLiteFunctions.value(argv[0], kind: sqlite3_value_int(argv[1]))
        SQLiteFunctions.result(ctx, try SharedSemantics.cast(v, to: SQLiteFunctions.value(argv[2])))
    } catch {
        SQLiteFunctions.fail(ctx, error, node: argv[3])
    }
}

// MARK: collations for sort descriptors

private func collate(_ a: UnsafeRawPointer?, _ na: Int32, _ b: UnsafeRawPointer?, _ nb: Int32, caseInsensitive: Bool) -> Int32 {
    let x = String(decoding: UnsafeRawBufferPointer(start: a, count: Int(na)), as: UTF8.self)
    let y = String(decoding: UnsafeRawBufferPointer(start: b, count: Int(nb)), as: UTF8.self)
    if caseInsensitive { return Int32(SharedSemantics.sortOrder(.string(x), .string(y), caseInsensitive: true)) }
    let options = (try? SharedSemantics.Options(.localeSensitive))
    return Int32((options.flatMap { try? SharedSemantics.compare(x, y, $0) }) ?? 0)
}

private let nocaseCollation: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, na, a, nb, b in
    collate(a, na, b, nb, caseInsensitive: true)
}

private let localizedCollation: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, na, a, nb, b in
    collate(a, na, b, nb, caseInsensitive: false)
}
