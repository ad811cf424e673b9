#if !canImport(Darwin)
import Foundation

extension NSPredicate {
    /// `predicateFormat`, read in one place: swift-corelibs-foundation marks it deprecated, so
    /// each use warns, as it will in ported code.
    var formatText: String { predicateFormat }
}
#endif
