/// `tokenize:using:(text, options)`, written `tokenize(%@, 'cdl')` in CloudKit's full-text
/// search (`ALL tokenize(%@, 'cdl') IN allTokens`): the words of a string (reference §4.7).
enum Tokenizing {
    /// The words of `value` — runs of letters, digits and combining marks; everything else
    /// separates them — as an array of strings, in order, repeats kept. `options` is a string
    /// of option letters: `c` folds case, `d` folds diacritics (as `[c]` and `[d]` fold, §6.5),
    /// `l` and `n` are accepted and change nothing (PQL's folding does not depend on a locale).
    /// An array or set of strings gives the words of each; nil gives nil.
    static func tokenize(_ value: PredicateValue, options: PredicateValue) throws(EvalError) -> PredicateValue {
        guard case .string(let letters) = options else {
            throw EvalError.typeMismatch("tokenize:using: needs its options as a string of letters such as 'cdl', not \(options.kindDescription)",
                                         hint: "write tokenize(text, 'cdl'), or '' for no folding")
        }
        var caseInsensitive = false, diacriticInsensitive = false
        for letter in letters.lowercased() {
            switch letter {
            case "c": caseInsensitive = true
            case "d": diacriticInsensitive = true
            case "l", "n": break
            default:
                throw EvalError.typeMismatch("tokenize:using: has no option '\(letter)'",
                                             hint: "the options are c (case), d (diacritics), l (locale) and n")
            }
        }
        func words(_ s: String) -> [PredicateValue] {
            let folded = caseInsensitive || diacriticInsensitive
                ? StringFolding.fold(s, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive) : s
            var out: [PredicateValue] = []
            var word = ""
            for c in folded {
                if c.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || $0.properties.generalCategory == .nonspacingMark }) {
                    word.append(c)
                } else if !word.isEmpty {
                    out.append(.string(word))
                    word = ""
                }
            }
            if !word.isEmpty { out.append(.string(word)) }
            return out
        }
        switch value {
        case .null: return .null
        case .string(let s): return .array(words(s))
        case .array(let items), .set(let items):
            var out: [PredicateValue] = []
            for item in items {
                guard case .string(let s) = item else {
                    throw EvalError.typeMismatch("tokenize:using: needs strings, but the collection holds \(item.kindDescription)")
                }
                out += words(s)
            }
            return .array(out)
        default:
            throw EvalError.typeMismatch("tokenize:using: needs a string, not \(value.kindDescription)",
                                         hint: "tokenize a string key or argument: tokenize(%@, 'cdl')")
        }
    }
}
