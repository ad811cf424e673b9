/// What a compiler knows statically about the values an expression takes: the kind every
/// non-nil value has, `null` when it is always nil, `unknown` when it can vary. The store's
/// SQL compiler decides with it whether SQL's own operators mean what the evaluator means.
///
/// ```swift
/// ValueKind(PredicateValue.int(3))                 // .integer
/// BuiltinFunction.add.resultKind([.integer, .real])   // .real
/// ```
package enum ValueKind: Hashable, Sendable {
    case integer, real, decimal, boolean, string, date, data, null
    /// Not known (a column of an inferred model without a declared type, a function result).
    case unknown

    /// The kind of `value`; a collection is `unknown` (its elements may be of any kind).
    package init(_ value: PredicateValue) {
        switch value {
        case .null: self = .null
        case .bool: self = .boolean
        case .int: self = .integer
        case .double: self = .real
        case .decimal: self = .decimal
        case .string: self = .string
        case .date: self = .date
        case .data: self = .data
        case .array, .set, .dictionary: self = .unknown
        }
    }
}
