/// The reserved words of reference §1.3. Matching is case-insensitive (decision D4).
enum Keyword: UInt8, CaseIterable, Sendable {
    case and, or, `in`, not, all, any, someQuantifier, noneQuantifier, like, caseInsensitive, ci, matches, contains
    case beginsWith, endsWith, between, null, `nil`, `self`, `true`, yes, `false`, no
    case first, last, size, anyKey, subquery, fetch, cast, truePredicate, falsePredicate
    case utiConformsTo, utiEquals

    /// The upper-case spelling. Written out rather than derived from the case name: deriving it
    /// went through reflection, whose first use cost more than a thousand parses of a short
    /// predicate.
    var spelling: String {
        switch self {
        case .and: return "AND"
        case .or: return "OR"
        case .in: return "IN"
        case .not: return "NOT"
        case .all: return "ALL"
        case .any: return "ANY"
        case .someQuantifier: return "SOME"
        case .noneQuantifier: return "NONE"
        case .like: return "LIKE"
        case .caseInsensitive: return "CASEINSENSITIVE"
        case .ci: return "CI"
        case .matches: return "MATCHES"
        case .contains: return "CONTAINS"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .between: return "BETWEEN"
        case .null: return "NULL"
        case .nil: return "NIL"
        case .self: return "SELF"
        case .true: return "TRUE"
        case .yes: return "YES"
        case .false: return "FALSE"
        case .no: return "NO"
        case .first: return "FIRST"
        case .last: return "LAST"
        case .size: return "SIZE"
        case .anyKey: return "ANYKEY"
        case .subquery: return "SUBQUERY"
        case .fetch: return "FETCH"
        case .cast: return "CAST"
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .utiConformsTo: return "UTI-CONFORMS-TO"
        case .utiEquals: return "UTI-EQUALS"
        }
    }

    /// The keyword spelt by the ASCII word `bytes[start..<end]`, in any case; nil for any
    /// other word. `low` and `high` are the word's first eight bytes and the bytes after them,
    /// packed little-endian (``Lexer``, which has them at hand from scanning the word).
    ///
    /// Keywords are all letters. Clearing bit 5 upper-cases a letter and turns no other byte
    /// into one, so a word matches exactly when it does after a full ASCII upper-casing; each
    /// length then compares one or two words against constants, the spellings packed the same
    /// way (the comment on each; ``spelling`` is the reference, and a test checks they agree).
    /// UTI-CONFORMS-TO and UTI-EQUALS hold hyphens and are read by the lexer itself.
    ///
    /// Inlined: asked for most words, and a short word's lookup is then a few comparisons
    /// (its `high` is known to be zero) rather than a call.
    @inline(__always)
    static func lookup(length n: Int, low: UInt64, high: UInt64) -> Keyword? {
        let low = low & 0xDFDF_DFDF_DFDF_DFDF, high = high & 0xDFDF_DFDF_DFDF_DFDF
        switch n {
        case 2:
            switch low {
            case 0x524F: return .or  // OR
            case 0x4E49: return .in  // IN
            case 0x4943: return .ci  // CI
            case 0x4F4E: return .no  // NO
            default: return nil
            }
        case 3:
            switch low {
            case 0x444E41: return .and  // AND
            case 0x544F4E: return .not  // NOT
            case 0x4C4C41: return .all  // ALL
            case 0x594E41: return .any  // ANY
            case 0x4C494E: return .nil  // NIL
            case 0x534559: return .yes  // YES
            default: return nil
            }
        case 4:
            switch low {
            case 0x454D4F53: return .someQuantifier  // SOME
            case 0x454E4F4E: return .noneQuantifier  // NONE
            case 0x454B494C: return .like  // LIKE
            case 0x4C4C554E: return .null  // NULL
            case 0x464C4553: return .self  // SELF
            case 0x45555254: return .true  // TRUE
            case 0x5453414C: return .last  // LAST
            case 0x455A4953: return .size  // SIZE
            case 0x54534143: return .cast  // CAST
            default: return nil
            }
        case 5:
            switch low {
            case 0x45534C4146: return .false  // FALSE
            case 0x5453524946: return .first  // FIRST
            case 0x4843544546: return .fetch  // FETCH
            default: return nil
            }
        case 6:
            return low == 0x59454B594E41 ? .anyKey : nil  // ANYKEY
        case 7:
            switch low {
            case 0x5345484354414D: return .matches  // MATCHES
            case 0x4E454557544542: return .between  // BETWEEN
            default: return nil
            }
        case 8:
            switch low {
            case 0x534E4941544E4F43: return .contains  // CONTAINS
            case 0x4854495753444E45: return .endsWith  // ENDSWITH
            case 0x5952455551425553: return .subquery  // SUBQUERY
            default: return nil
            }
        case 10:
            return low == 0x4957534E49474542 && high == 0x4854 ? .beginsWith : nil  // BEGINSWITH
        case 13:
            return low == 0x4445525045555254 && high == 0x4554414349 ? .truePredicate : nil  // TRUEPREDICATE
        case 14:
            return low == 0x45525045534C4146 && high == 0x455441434944 ? .falsePredicate : nil  // FALSEPREDICATE
        case 15:
            return low == 0x45534E4945534143 && high == 0x4556495449534E ? .caseInsensitive : nil  // CASEINSENSITIVE
        default:
            return nil
        }
    }

    /// Every reserved spelling, upper-cased: the printer `#`-escapes keys found here.
    static let reservedSpellings: Set<String> = Set(allCases.map(\.spelling))
}
