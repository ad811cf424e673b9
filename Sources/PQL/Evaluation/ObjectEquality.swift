import Foundation

/// Objects in memory, with the store's semantics (README "Objects and relationships"): a
/// dictionary tagged with `$entity` and `$key` (an ``ObjectID``, a fetched record) is an
/// object. It equals an object of the same entity with the same key, and a bare key equal to
/// its own, because a record holds each to-one link as its destination's key. It equals no
/// other dictionary and never nil. A string, a date, data or a collection is never an
/// object's key; comparing one with an object is an error, as it is in the store.
enum ObjectEquality {
    /// `object == other` when `object` is a dictionary; nil when it is no object, so that
    /// plain dictionary equality decides.
    static func equal(_ object: PredicateValue, _ other: PredicateValue) throws(EvalError) -> Bool? {
        if let problem = object.objectProblem { throw malformed(problem) }
        guard let id = object.objectID else { return nil }
        switch other {
        case .null:
            return false
        case .dictionary:
            if let problem = other.objectProblem { throw malformed(problem) }
            guard let o = other.objectID else { return false }
            if (id.key.stringValue == nil) != (o.key.stringValue == nil) { throw wrongKey(id, o.key) }
            // An empty entity is one the store checked already (ObjectID.anonymous).
            return (id.entity == o.entity || id.entity.isEmpty || o.entity.isEmpty) && id.key == o.key
        case .int, .bool, .double, .decimal:
            guard case .int = id.key else { throw wrongKey(id, other) }
            return id.key == other
        case .string:
            guard case .string = id.key else { throw wrongKey(id, other) }
            return id.key == other
        case .date, .data, .array, .set:
            throw EvalError.typeMismatch("\(describe(id)) is compared with \(other.kindDescription): an object equals only an object or its key",
                                         hint: "compare the object with an object ID or a key, or compare one of its attributes")
        }
    }

    /// Objects have no order: `<` and the others, BETWEEN and MIN/MAX over them are errors.
    static func unordered(_ id: ObjectID) -> EvalError {
        EvalError(kind: .incomparable, message: "\(describe(id)) cannot be ordered: objects have no order",
                  hint: "compare with == or !=, test membership with IN, or compare one of its attributes")
    }

    private static func wrongKey(_ id: ObjectID, _ other: PredicateValue) -> EvalError {
        let expected = id.key.stringValue != nil ? "a string" : "an integer"
        return EvalError.typeMismatch("\(describe(id)) is compared with \(other.kindDescription) \(other): its key is \(expected)",
                                      hint: "give the object's key as \(expected), or an object ID with such a $key")
    }

    private static func describe(_ id: ObjectID) -> String {
        id.entity.isEmpty ? "an object" : "an object of \(id.entity)"
    }

    private static func malformed(_ problem: String) -> EvalError {
        EvalError.typeMismatch(problem, hint: ObjectID.formHint())
    }
}

extension PredicateValue {
    var isDictionary: Bool { if case .dictionary = self { true } else { false } }
}
