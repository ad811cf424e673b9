import Foundation

/// The selectors that mean something without the Objective-C runtime, for the custom selector
/// operator (`SELF isKindOfClass: 'NSString'`) and `FUNCTION` alike, when the caller's
/// ``PredicateFunctions`` does not define them (reference §3.1).
enum SelectorEvaluation {
    /// The built-in meaning of `selector`, if it has one.
    static func builtin(_ selector: String) -> PredicateFunctions.Body? {
        switch selector {
        case "isKindOfClass:": return { value, args in try isKind(value, args) }
        default: return nil
        }
    }

    /// `value isKindOfClass: name`: whether the value is of the kind the Foundation class
    /// `name` stands for on Apple platforms (`NSString` for a string, `NSNumber` for numbers
    /// and booleans, `NSArray`, `NSDictionary`…), or an object of the entity `name`. A class
    /// name PQL's values never have (`NSURL`, `UIView`, a misspelling) is never matched, and nil
    /// is of no class (in Objective-C a message to nil answers NO), `NSNull` included.
    static func isKind(_ value: PredicateValue, _ args: [PredicateValue]) throws(EvalError) -> PredicateValue {
        guard args.count == 1, case .string(let name) = args[0] else {
            throw EvalError.typeMismatch("isKindOfClass: needs a class name string, not \(args.first?.kindDescription ?? "nothing")",
                                         hint: "write the class name in quotes: SELF isKindOfClass: 'NSString'")
        }
        if let object = value.objectID {
            return .bool(name == "NSObject" || name == "NSManagedObject" || name == object.entity)
        }
        let kinds = Self.kinds[name] ?? []
        return .bool(kinds.contains(kind(of: value)))
    }

    private enum Kind { case null, number, decimal, string, date, data, array, set, dictionary }

    private static func kind(of v: PredicateValue) -> Kind {
        switch v {
        case .null: return .null
        case .bool, .int, .double: return .number
        case .decimal: return .decimal
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .array: return .array
        case .set: return .set
        case .dictionary: return .dictionary
        }
    }

    /// The Foundation classes, each with the kinds of value that are its instances (a subclass's
    /// kinds included: an NSDecimalNumber is an NSNumber; every value is an NSObject).
    private static let kinds: [String: Set<Kind>] = [
        "NSObject": [.null, .number, .decimal, .string, .date, .data, .array, .set, .dictionary],
        "NSNumber": [.number, .decimal], "NSValue": [.number, .decimal], "NSDecimalNumber": [.decimal],
        "NSString": [.string], "NSMutableString": [.string],
        "NSDate": [.date], "NSData": [.data], "NSMutableData": [.data],
        "NSArray": [.array], "NSMutableArray": [.array], "NSOrderedSet": [.array],
        "NSSet": [.set], "NSMutableSet": [.set],
        "NSDictionary": [.dictionary], "NSMutableDictionary": [.dictionary],
    ]
}
