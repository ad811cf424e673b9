/// KVC-style reading of key paths on values (reference §4.2, §6.9).
///
/// A dictionary gives the value for the key (nil when missing, decision D5); an array or set
/// applies the key to every element and collects the results in a collection of the same kind;
/// nil stays nil; `self` is the value itself; an `@operator` component applies a collection
/// operator to what the path has reached so far, with the rest of the path as its right side.
enum KeyPathReading {
    static func value(_ base: PredicateValue, path: ArraySlice<String>) throws(EvalError) -> PredicateValue {
        var current = base
        var i = path.startIndex
        while i < path.endIndex {
            let key = path[i]
            if CollectionOperator.isOperator(key) {
                return try CollectionOperators.apply(key, to: current, rest: path[(i + 1)...])
            }
            current = try value(current, key: key)
            i += 1
        }
        return current
    }

    static func value(_ base: PredicateValue, key: String) throws(EvalError) -> PredicateValue {
        switch base {
        case .dictionary(let d): return d[key] ?? .null
        case .null: return .null
        case .array(let a), .set(let a):
            // A key on a collection reads it from every element, into the same kind of collection.
            if key == "self" { return base }
            var out: [PredicateValue] = []
            out.reserveCapacity(a.count)
            for e in a { out.append(try value(e, key: key)) }
            if case .set = base { return .set(out) }
            return .array(out)
        case .string(let s):
            if key == "self" { return base }
            if key == "length" { return .int(Int64(s.utf16.count)) }
            throw unknown(key, on: base, known: ["length", "self"])
        default:
            if key == "self" { return base }
            throw unknown(key, on: base, known: ["self"])
        }
    }

    static func unknown(_ key: String, on base: PredicateValue, known: [String]) -> EvalError {
        EvalError(kind: .unknownKey, message: "\(base.kindDescription) has no key '\(key)'",
                  hint: known.isEmpty ? nil : "keys of \(base.kindDescription): " + known.joined(separator: ", "))
    }
}

/// A KVC collection operator (reference §4.3): a key path component that starts with `@`.
/// The evaluator applies them here; the store's SQL compiler reads the same enum to decide
/// what it can compute in SQL.
///
/// ```swift
/// CollectionOperator(component: "@avg")   // .average
/// CollectionOperator.isOperator("@foo")   // true: an operator, though not one PQL knows
/// ```
package enum CollectionOperator: String, CaseIterable, Sendable {
    case count = "@count", sum = "@sum", average = "@avg", min = "@min", max = "@max"
    case unionOfObjects = "@unionOfObjects", distinctUnionOfObjects = "@distinctUnionOfObjects"
    case unionOfArrays = "@unionOfArrays", distinctUnionOfArrays = "@distinctUnionOfArrays"
    case unionOfSets = "@unionOfSets", distinctUnionOfSets = "@distinctUnionOfSets"

    /// The operator a key path component names; nil for a plain key and for an unknown `@name`.
    package init?(component: String) { self.init(rawValue: component) }

    /// Whether a key path component is a collection operator's place (known or not): the
    /// evaluator applies it, or reports it unknown, rather than reading it as a key.
    package static func isOperator(_ component: String) -> Bool { component.hasPrefix("@") }

    /// The shared aggregate that computes `@sum`, `@avg`, `@min` and `@max`.
    package var aggregate: SharedSemantics.Aggregate.Operation? {
        switch self {
        case .sum: return .sumOperator
        case .average: return .averageOperator
        case .min: return .minOperator
        case .max: return .maxOperator
        default: return nil
        }
    }

    /// Whether the operator needs a key after it (`@sum.price`); `@count` takes none.
    package var takesKey: Bool { self != .count }
}

/// The KVC collection operators of reference §4.3.
enum CollectionOperators {
    static func apply(_ name: String, to base: PredicateValue, rest: ArraySlice<String>) throws(EvalError) -> PredicateValue {
        if base.isNull { return .null }
        // An unknown operator is reported where the evaluator always reported it: after the
        // collection and its elements' keys were read.
        let op = CollectionOperator(component: name)
        if op == .count {
            guard rest.isEmpty else {
                throw EvalError.unsupported("@count takes no key after it", hint: "write items.@count")
            }
            switch base {
            case .array(let a), .set(let a): return .int(Int64(a.count))
            case .dictionary(let d): return .int(Int64(d.count))
            default: throw EvalError.notACollection("@count needs a collection, not \(base.kindDescription)")
            }
        }
        guard let elements = base.collectionElements ?? (base.dictionaryValues) else {
            throw EvalError.notACollection("\(name) needs a collection, not \(base.kindDescription)")
        }
        var values: [PredicateValue] = []
        values.reserveCapacity(elements.count)
        for e in elements { values.append(rest.isEmpty ? e : try KeyPathReading.value(e, path: rest)) }
        if let operation = op?.aggregate {
            var aggregate = SharedSemantics.Aggregate(operation)
            for v in values { try aggregate.add(v) }
            return try aggregate.result()
        }
        switch op {
        case .unionOfObjects?:
            return .array(values.filter { !$0.isNull })
        case .distinctUnionOfObjects?:
            return .array(Aggregates.distinct(values.filter { !$0.isNull }))
        case .unionOfArrays?, .distinctUnionOfArrays?, .unionOfSets?, .distinctUnionOfSets?:
            var flat: [PredicateValue] = []
            for v in values where !v.isNull {
                guard let inner = v.collectionElements else {
                    throw EvalError.notACollection("\(name) needs a collection of collections, found \(v.kindDescription)")
                }
                flat.append(contentsOf: inner)
            }
            let sets = op == .unionOfSets || op == .distinctUnionOfSets
            let result = op != .unionOfArrays ? Aggregates.distinct(flat) : flat
            return sets ? .set(result) : .array(result)
        default:
            // nil: `@count` and the aggregates returned above.
            throw EvalError(kind: .unsupported, message: "unknown collection operator \(name)",
                            hint: Spelling.nearest(to: name, in: known).map { "did you mean \($0)?" }
                                ?? "the operators are " + known.joined(separator: ", "))
        }
    }

    static let known = CollectionOperator.allCases.map(\.rawValue)
}

extension PredicateValue {
    var dictionaryValues: [PredicateValue]? {
        if case .dictionary(let d) = self { return d.keys.sorted().map { d[$0]! } }
        return nil
    }
}
