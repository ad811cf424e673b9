#if !canImport(Darwin)
import Foundation

/// `predicateFormat` read through a protocol requirement: swift-corelibs-foundation marks the
/// property deprecated, so each direct use warns (as it will in ported code), and PQL's own code
/// builds without warnings. The dynamic dispatch is the same: the overrides answer.
protocol PredicateFormatReading {
    var predicateFormat: String { get }
}

extension NSPredicate: PredicateFormatReading {}

extension NSPredicate {
    var formatText: String { (self as any PredicateFormatReading).predicateFormat }
}
#endif
