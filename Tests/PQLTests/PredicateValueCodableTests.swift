import Foundation
import Testing
import PQL
import PQLTestSupport

/// `PredicateValue` through JSON: natural where JSON has the kind, tagged where it does not,
/// and every case round-trips to the same case with an equal value.
@Suite("PredicateValue Codable")
struct PredicateValueCodableTests {
    static func json(_ v: PredicateValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(v), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> PredicateValue {
        try JSONDecoder().decode(PredicateValue.self, from: Data(text.utf8))
    }

    /// The same case, with an equal payload (`==` alone would let `.int(1)` pass for `.double(1)`).
    static func sameKind(_ a: PredicateValue, _ b: PredicateValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case let (.decimal(x), .decimal(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.date(x), .date(y)):
            let (a, b) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
            return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case let (.data(x), .data(y)): return x == y
        case let (.array(x), .array(y)), let (.set(x), .set(y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameKind($0, $1) }
        case let (.dictionary(x), .dictionary(y)):
            return x.keys.sorted() == y.keys.sorted() && x.allSatisfy { k, v in sameKind(v, y[k]!) }
        default: return false
        }
    }

    static let cases: [(PredicateValue, String)] = [
        (.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.int(42), "42"),
        (.int(-7), "-7"),
        (.int(.max), "9223372036854775807"),
        (.int(.min), "-9223372036854775808"),
        (.double(2.5), "2.5"),
        (.double(-0.1), "-0.1"),
        (.double(1e-300), "1e-300"),
        (.double(2), #"{"$double":"2.0"}"#),
        (.double(-0.0), #"{"$double":"-0.0"}"#),
        (.double(1e300), #"{"$double":"1e+300"}"#),
        (.double(.infinity), #"{"$double":"inf"}"#),
        (.double(-.infinity), #"{"$double":"-inf"}"#),
        (.double(.nan), #"{"$double":"nan"}"#),
        (.decimal(Decimal(string: "0.1")!), #"{"$decimal":"0.1"}"#),
        (.decimal(Decimal(string: "-123456789012345678901234567890.5")!), #"{"$decimal":"-123456789012345678901234567890.5"}"#),
        (.decimal(2), #"{"$decimal":"2"}"#),
        (.string(""), #""""#),
        (.string("Ángel \"quoted\" 🙂"), #""Ángel \"quoted\" 🙂""#),
        (.date(Date(timeIntervalSinceReferenceDate: 0)), #"{"$date":0}"#),
        (.date(Date(timeIntervalSinceReferenceDate: 721692800.123456789)), #"{"$date":721692800.1234568}"#),
        (.date(Date(timeIntervalSinceReferenceDate: -1.5)), #"{"$date":-1.5}"#),
        (.data(Data([0, 1, 254, 255])), #"{"$data":"AAH+/w=="}"#),
        (.data(Data()), #"{"$data":""}"#),
        (.array([]), "[]"),
        (.array([1, 2.5, "a", nil, .double(3), [true]]), #"[1,2.5,"a",null,{"$double":"3.0"},[true]]"#),
        (.set([1, "b"]), #"{"$set":[1,"b"]}"#),
        (.set([]), #"{"$set":[]}"#),
        (.dictionary([:]), "{}"),
        (.dictionary(["a": 1, "b": [nil, .date(Date(timeIntervalSinceReferenceDate: 1))]]), #"{"a":1,"b":[null,{"$date":1}]}"#),
        (.dictionary(["$date": 1]), #"{"$dictionary":{"$date":1}}"#),
        (.dictionary(["$dictionary": "x"]), #"{"$dictionary":{"$dictionary":"x"}}"#),
        (.dictionary(["$other": 1]), #"{"$other":1}"#),
        (.dictionary(["$date": 1, "b": 2]), #"{"$date":1,"b":2}"#),
    ]

    @Test("every case encodes as documented and decodes to the same case", arguments: cases.indices)
    func roundTrip(_ i: Int) throws {
        let (value, expected) = Self.cases[i]
        let text = try Self.json(value)
        #expect(text == expected)
        let back = try Self.decode(text)
        #expect(Self.sameKind(back, value), "\(value) came back as \(back)")
        #expect(back == value || value.doubleValue?.isNaN == true)
    }

    @Test("a decimal NaN round-trips")
    func decimalNaN() throws {
        #expect(try Self.json(.decimal(.nan)) == #"{"$decimal":"NaN"}"#)
        guard case .decimal(let d) = try Self.decode(#"{"$decimal":"NaN"}"#) else { Issue.record("not a decimal"); return }
        #expect(d.isNaN)
    }

    @Test("values nested in other Codable types round-trip too")
    func nested() throws {
        struct Envelope: Codable { var values: [String: PredicateValue]; var list: [PredicateValue] }
        let e = Envelope(values: ["d": .decimal(Decimal(string: "1.10")!), "t": .date(Date(timeIntervalSinceReferenceDate: 3))],
                         list: [.double(1), .int(1), .bool(true), .null])
        let back = try JSONDecoder().decode(Envelope.self, from: try JSONEncoder().encode(e))
        #expect(Self.sameKind(.dictionary(back.values), .dictionary(e.values)))
        #expect(Self.sameKind(.array(back.list), .array(e.list)))
    }

    @Test("a property list keeps every kind as well")
    func propertyList() throws {
        let value: PredicateValue = ["i": 1, "d": 2.5, "whole": .double(3), "b": true, "s": "x",
                                     "t": .date(Date(timeIntervalSinceReferenceDate: 9.75)), "bytes": .data(Data([7])),
                                     "n": .decimal(Decimal(string: "0.3")!), "set": .set([1]), "list": [1, "a"]]
        let data = try PropertyListEncoder().encode(["v": value])
        let back = try PropertyListDecoder().decode([String: PredicateValue].self, from: data)["v"]!
        #expect(Self.sameKind(back, value), "\(back)")
    }

    @Test("hand-written JSON decodes: integers beyond Int64 exactly as decimals")
    func handWritten() throws {
        #expect(Self.sameKind(try Self.decode("18446744073709551615"), .decimal(Decimal(string: "18446744073709551615")!)))
        #expect(Self.sameKind(try Self.decode(#"{"$date":"1.5"}"#), .date(Date(timeIntervalSinceReferenceDate: 1.5))))
        // A whole number is an integer however it is written; a double needs the tag.
        for text in ["2", "2.0", "2e0"] { #expect(Self.sameKind(try Self.decode(text), .int(2)), "\(text)") }
        #expect(Self.sameKind(try Self.decode(#"{"$double":"2"}"#), .double(2)))
        // What jsonText() (and so pql) writes for a date reads back as that date.
        let date = PredicateValue.date(Date(timeIntervalSinceReferenceDate: 721692800.25))
        #expect(Self.sameKind(try Self.decode(date.jsonText()), date))
        #expect(Self.sameKind(try Self.decode(#"{"name":"x","tags":["a"]}"#), ["name": "x", "tags": ["a"]]))
    }

    @Test("malformed tagged values are decoding errors", arguments: [
        #"{"$double":"two"}"#, #"{"$decimal":"x"}"#, #"{"$date":"soon"}"#, #"{"$data":"%%%"}"#, #"{"$set":1}"#,
        #"{"$double":2}"#, #"{"$dictionary":[1]}"#,
    ])
    func malformed(_ text: String) {
        #expect(throws: DecodingError.self) { try Self.decode(text) }
    }

    /// A random value of any shape: doubles from random bit patterns (NaNs, infinities,
    /// subnormals, whole numbers), decimals, dates, keys that look like tags.
    static func randomValue(_ rng: inout SeededSplitMix64, depth: Int = 0) -> PredicateValue {
        let leaf = depth >= 3 || rng.next() % 3 != 0
        if leaf {
            switch rng.next() % 9 {
            case 0: return .null
            case 1: return .bool(rng.next() % 2 == 0)
            case 2: return .int(Int64(bitPattern: rng.next()) >> (rng.next() % 64))
            case 3: return .double(Double(bitPattern: rng.next()))
            case 4: return .double(Double(Int64(bitPattern: rng.next()) >> (rng.next() % 64)))
            case 5: return .decimal(Decimal(Int64(bitPattern: rng.next()) >> 8) / Decimal(sign: .plus, exponent: Int(rng.next() % 20), significand: 1))
            case 6: return .date(Date(timeIntervalSinceReferenceDate: Double(Int64(bitPattern: rng.next()) >> 30) / 1024))
            case 7: return .data(Data((0..<(rng.next() % 6)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
            default:
                let scalars = (0..<(rng.next() % 6)).compactMap { _ in Unicode.Scalar(UInt32(rng.next() % 0x11_0000)) }
                return .string(String(String.UnicodeScalarView(scalars)))
            }
        }
        let n = Int(rng.next() % 4)
        switch rng.next() % 3 {
        case 0: return .array((0..<n).map { _ in randomValue(&rng, depth: depth + 1) })
        case 1: return .set((0..<n).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            let keys = ["a", "$date", "$set", "$dictionary", "$x", "b c", ""]
            var d: [String: PredicateValue] = [:]
            for _ in 0..<n { d[keys[Int(rng.next() % UInt64(keys.count))]] = randomValue(&rng, depth: depth + 1) }
            return .dictionary(d)
        }
    }

    @Test("random values of every shape round-trip to the same case")
    func randomRoundTrips() throws {
        let seed = SeededSplitMix64.seed(fromEnvironment: "PQL_CODABLE_SEED", default: 0xC0DA_B1E)
        for i in 0..<2000 {
            var rng = SeededSplitMix64(seed: SeededSplitMix64.caseSeed(seed, i))
            let value = Self.randomValue(&rng)
            let text = try Self.json(value)
            let back = try Self.decode(text)
            #expect(Self.sameKind(back, value), "seed \(seed) case \(i): \(text)")
        }
    }
}
