import Testing
@testable import PQL

/// ``FoldedSearch`` answers from a per-scalar table that is derived from ``StringFolding``;
/// these tests keep the two in agreement whenever folding changes.
@Suite("Fold table agrees with StringFolding")
struct FoldTableAgreementTests {
    static let optionSets: [StringOptions] = [
        StringOptions(caseInsensitive: true, diacriticInsensitive: false, localized: false),
        StringOptions(caseInsensitive: false, diacriticInsensitive: true, localized: false),
        StringOptions(caseInsensitive: true, diacriticInsensitive: true, localized: false),
    ]

    /// Every scalar of the table's ranges, alone and between ASCII letters, searched for with
    /// needles folded from itself, from its neighbours and from ASCII.
    @Test("every covered scalar", arguments: 0..<3)
    func everyScalar(_ optionIndex: Int) {
        let options = Self.optionSets[optionIndex]
        var mismatches: [String] = []
        for range: ClosedRange<UInt32> in [0x80...0x24F, 0x370...0x52F, 0x1E00...0x1EFF] {
            for v in range {
                guard let u = Unicode.Scalar(v) else { continue }
                let subject = "Xa" + String(Character(u)) + "bY"
                for raw in [String(Character(u)), "a" + String(Character(u)), String(Character(u)) + "b", "xa", "by", "A"] {
                    let needle = options.prepare(raw)
                    let expected = StringSearch.contains(options.prepare(subject), needle) && !needle.isEmpty
                    for op in [ComparisonOperator.contains, .beginsWith, .endsWith] {
                        let general: Bool
                        switch op {
                        case .beginsWith: general = StringSearch.hasPrefix(options.prepare(subject), needle)
                        case .endsWith: general = StringSearch.hasSuffix(options.prepare(subject), needle)
                        default: general = expected
                        }
                        if let fast = FoldedSearch.test(op, subject: subject, needle: Array(needle.utf8), options: options),
                           fast != general {
                            mismatches.append("U+\(String(v, radix: 16)) \(op.symbol) \(raw.debugDescription)")
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }

    @Test("a decimal compares with doubles beyond Decimal's range")
    func hugeDoubles() throws {
        let p = try PredicateNode(format: "score >= %@", PredicateValue.decimal(30))
        #expect(try p.evaluate(on: ["score": 1e300] as PredicateValue))
        #expect(try !p.evaluate(on: ["score": -1e300] as PredicateValue))
        #expect(try PredicateNode(format: "score < %@", PredicateValue.decimal(30)).evaluate(on: ["score": -1e300] as PredicateValue))
    }
}

/// The starts `BEGINSWITH[c]` narrows a search to (the stores' index ranges, PostgreSQL's first
/// scalar test) hold every scalar whose fold begins with the needle's first scalar.
@Suite("Case-insensitive prefix starts")
struct CaseInsensitivePrefixStartTests {
    @Test func everyScalarFoldingToAStartIsOne() {
        var missing: [String] = []
        for v in UInt32(0x41)...0x10FFFF {
            guard let u = Unicode.Scalar(v) else { continue }
            let p = u.properties
            // Wider than the index's own filter: any scalar that NFKC case folding changes.
            guard p.changesWhenNFKCCaseFolded || p.changesWhenCaseFolded || p.changesWhenCaseMapped else { continue }
            let folded = StringFolding.fold(String(Character(u)), caseInsensitive: true, diacriticInsensitive: false)
            guard let x = folded.unicodeScalars.first, x != u else { continue }
            let needle = String(Character(x))
            guard StringFolding.fold(needle, caseInsensitive: true, diacriticInsensitive: false).unicodeScalars.first == x,
                  let starts = SharedSemantics.caseInsensitivePrefixStarts(needle) else { continue }
            if !starts.contains(u) { missing.append("U+\(String(v, radix: 16)) folds to U+\(String(x.value, radix: 16))") }
        }
        #expect(missing.isEmpty, "\(missing.count): \(missing.prefix(10))")
    }
}
