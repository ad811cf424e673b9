#if !canImport(Darwin)
import Foundation
import PQL

/// The NSCompoundPredicate that PQLFoundation's `NSCompoundPredicate(…)` functions return.
///
/// Foundation's NSCompoundPredicate evaluates its subpredicates already (each one a
/// ``FormatPredicate`` evaluates by its own override), but it inherits a `predicateFormat` that
/// prints `FALSEPREDICATE` on Linux, and an extension cannot override that. This subclass
/// overrides it with the subpredicates' formats joined as Apple joins them.
final class CompoundPredicate: NSCompoundPredicate {
    override var predicateFormat: String { PredicateText.format(of: self) }

    override var description: String { predicateFormat }

    /// A compound's subpredicates can be replaced (`subpredicates` is `var`), so a copy is new.
    override func copy(with zone: NSZone? = nil) -> Any {
        CompoundPredicate(type: compoundPredicateType, subpredicates: subpredicates)
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSCompoundPredicate else { return false }
        return other.compoundPredicateType == compoundPredicateType && other.subpredicates == subpredicates
    }

    override var hash: Int { Int(compoundPredicateType.rawValue) &+ subpredicates.count }
}

// Why the OR and NOT functions have unused defaulted parameters: Swift chooses between
// Foundation's class (its initializers) and these functions by favoring, among the functions
// named `NSCompoundPredicate`, the one whose parameter count equals the call's argument count —
// but only when exactly one function has that count (the type checker's overload favoring by
// arity, CSOptimizer's findFavoredChoicesBasedOnArity). Without a favored function the class's
// initializer and the function rank equal and the call is ambiguous. So each function declares
// a different number of parameters (AND 1, type 2, OR 3, NOT 4) while each call still passes
// the one or two arguments Foundation's initializer takes. (Unlabeled: the symbol graph hides a
// declaration with an underscored label, and DocC would not list it.) PQLFoundationTests compiles every
// form, so a compiler that ranks differently fails the build there, not in users' code.

/// An AND, OR or NOT of predicates, like Foundation's initializer of the same name; unlike
/// Foundation's on Linux, its `predicateFormat` prints the subpredicates.
///
/// A function named after the class (see <doc:PortingDarwinCode>): a call
/// `NSCompoundPredicate(…)` prefers it to the class's own initializer, and `NSCompoundPredicate`
/// as a type (`let c: NSCompoundPredicate`, `as? NSCompoundPredicate`) still names Foundation's
/// class, which the result is.
///
/// ```swift
/// let either = NSCompoundPredicate(type: .or, subpredicates: [NSPredicate(format: "a == 1"), NSPredicate(format: "b == 2")])
/// either.predicateFormat   // a == 1 OR b == 2
/// ```
public func NSCompoundPredicate(type: NSCompoundPredicate.LogicalType, subpredicates: [NSPredicate]) -> NSCompoundPredicate {
    CompoundPredicate(type: type, subpredicates: subpredicates)
}

/// The AND of predicates: true when every one is.
///
/// ```swift
/// let both = NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "a == 1"), NSPredicate(format: "b == 2")])
/// both.evaluate(with: ["a": 1, "b": 2])   // true
/// ```
public func NSCompoundPredicate(andPredicateWithSubpredicates subpredicates: [NSPredicate]) -> NSCompoundPredicate {
    CompoundPredicate(type: .and, subpredicates: subpredicates)
}

/// The OR of predicates: true when any one is.
///
/// ```swift
/// let either = NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(format: "a == 1"), NSPredicate(format: "b == 2")])
/// either.evaluate(with: ["a": 0, "b": 2])   // true
/// ```
public func NSCompoundPredicate(orPredicateWithSubpredicates subpredicates: [NSPredicate],
                                _ padding2: Void = (), _ padding3: Void = ()) -> NSCompoundPredicate {
    CompoundPredicate(type: .or, subpredicates: subpredicates)
}

/// The negation of a predicate.
///
/// ```swift
/// let notVip = NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "ANY tags == 'vip'"))
/// notVip.predicateFormat   // NOT ANY tags == "vip"
/// ```
public func NSCompoundPredicate(notPredicateWithSubpredicate predicate: NSPredicate,
                                _ padding2: Void = (), _ padding3: Void = (), _ padding4: Void = ()) -> NSCompoundPredicate {
    CompoundPredicate(type: .not, subpredicates: [predicate])
}
#endif
