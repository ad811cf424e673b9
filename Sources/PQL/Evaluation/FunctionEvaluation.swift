import Foundation

/// Built-in functions applied to evaluated arguments (reference §4.7).
enum FunctionEvaluation {
    static func apply(_ f: BuiltinFunction, _ args: [PredicateValue]) throws(EvalError) -> PredicateValue {
        switch f {
        case .add, .subtract, .multiply, .divide, .modulus, .power,
             .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift:
            return try Arithmetic.binary(f, args[0], args[1])
        case .negate: return try Arithmetic.negate(args[0])
        case .onesComplement: return try Arithmetic.onesComplement(args[0])
        case .sum, .average, .min, .max:
            var aggregate = SharedSemantics.Aggregate(f.selector)!
            for v in try collection(args[0], f) { try aggregate.add(v) }
            return try aggregate.result()
        case .count:
            if case .dictionary(let d) = args[0] { return .int(Int64(d.count)) }
            return .int(Int64(try collection(args[0], f).count))
        case .median: return try Aggregates.median(try collection(args[0], f))
        case .mode: return Aggregates.mode(try collection(args[0], f))
        case .stddev: return try Aggregates.stddev(try collection(args[0], f))
        case .distinct: return .array(Aggregates.distinct(try collection(args[0], f)))
        case .sqrt: return .double(try number(args[0], f).squareRoot())
        case .log: return .double(log10(try number(args[0], f)))
        case .ln: return .double(Foundation.log(try number(args[0], f)))
        case .exp: return .double(Foundation.exp(try number(args[0], f)))
        case .floor: return .double(Foundation.floor(try number(args[0], f)))
        case .ceiling: return .double(Foundation.ceil(try number(args[0], f)))
        case .trunc: return .double(Foundation.trunc(try number(args[0], f)))
        case .abs:
            switch args[0].numeric {
            case .int(let i)?:
                if i == .min { throw Arithmetic.overflow("abs:(\(i)) does not fit in 64 bits") }
                return .int(Swift.abs(i))
            case .double(let d)?: return .double(Swift.abs(d))
            case .decimal(let d)?: return .decimal(d < 0 ? -d : d)
            case nil: throw notANumber(f, args[0])
            }
        case .random: return .double(Double.random(in: 0..<1))
        case .randomn:
            guard case .int(let n)? = args[0].numeric, n > 0 else {
                throw EvalError.typeMismatch("randomn: needs a positive integer, not \(args[0])")
            }
            return .int(Int64.random(in: 0..<n))
        case .now: return .date(Date())
        case .uppercase: return .string(try string(args[0], f).uppercased())
        case .lowercase: return .string(try string(args[0], f).lowercased())
        case .length: return .int(Int64(try string(args[0], f).utf16.count))
        case .canonical:
            return .string(StringFolding.fold(try string(args[0], f), caseInsensitive: true, diacriticInsensitive: true))
        case .noindex: return args[0]
        case .tokenize: return try Tokenizing.tokenize(args[0], options: args[1])
        case .distanceToLocation, .indexed:
            throw EvalError.unsupported("\(f.selector) is a Core Location / Core Data internal with no meaning outside Apple platforms")
        }
    }

    /// The elements of an aggregate function's argument. Anything else is aggregate misuse
    /// (Apple: "Invoked count with non-collection parameter.", "… bad collection parameter.";
    /// reference §6.10 maps both to the aggregate error).
    static func collection(_ v: PredicateValue, _ f: BuiltinFunction) throws(EvalError) -> [PredicateValue] {
        guard let elements = v.collectionElements else {
            throw EvalError.aggregate("\(f.selector) needs a collection, not \(v.kindDescription)")
        }
        return elements
    }

    static func number(_ v: PredicateValue, _ f: BuiltinFunction) throws(EvalError) -> Double {
        guard let n = v.numeric else { throw notANumber(f, v) }
        return n.doubleValue
    }

    /// A math function given nil or a non-number: the same arithmetic error as `x + 1` on it
    /// (Apple: "mathematical functions require NSNumber parameters"; reference §6.10).
    static func notANumber(_ f: BuiltinFunction, _ v: PredicateValue) -> EvalError {
        EvalError.arithmetic("\(f.selector) needs a number, not \(v.kindDescription)",
                             hint: v.isNull ? "test for nil first: x != nil AND \(f.selector)(x) > 1"
                                 : "give it a number; CAST(x, \"NSNumber\") converts a numeric string")
    }

    static func string(_ v: PredicateValue, _ f: BuiltinFunction) throws(EvalError) -> String {
        guard case .string(let s) = v else { throw mismatch(f, v, "a string") }
        return s
    }

    static func mismatch(_ f: BuiltinFunction, _ v: PredicateValue, _ wanted: String) -> EvalError {
        EvalError.typeMismatch("\(f.selector) needs \(wanted), not \(v.kindDescription)")
    }
}

/// `CAST(value, 'Type')` (reference §4.8).
enum Casting {
    static func cast(_ v: PredicateValue, to type: PredicateValue) throws(EvalError) -> PredicateValue {
        guard case .string(let t) = type else {
            throw EvalError.typeMismatch("CAST needs a type name string, not \(type.kindDescription)")
        }
        if v.isNull { return .null }
        switch t {
        case "NSString":
            switch v {
            case .string: return v
            case .bool(let b): return .string(b ? "1" : "0")
            case .int(let i): return .string(String(i))
            case .double(let d): return .string(d == d.rounded() && Swift.abs(d) < 1e15 ? String(Int64(d)) : String(d))
            case .decimal(let d): return .string(d.description)
            case .date(let d): return .string(ISO8601.string(from: d))
            default: return .string(v.description)
            }
        case "NSNumber", "NSDecimalNumber":
            switch v {
            case .bool, .int, .double:
                return t == "NSDecimalNumber" ? .decimal(try Arithmetic.decimal(v.numeric!)) : v
            case .decimal: return v
            case .date(let d): return .double(d.timeIntervalSinceReferenceDate)
            case .string(let s):
                let trimmed = s.trimmingCharacters(in: .whitespaces)
                if t == "NSDecimalNumber", let d = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) { return .decimal(d) }
                if let i = Int64(trimmed) { return .int(i) }
                if let d = Double(trimmed) { return .double(d) }
                throw EvalError.typeMismatch("CAST cannot read a number from \"\(s)\"")
            default: break
            }
        case "NSDate":
            switch v {
            case .date: return v
            case .string(let s):
                guard let d = ISO8601.date(from: s) else {
                    throw EvalError.typeMismatch("CAST cannot read a date from \"\(s)\"", hint: "write an ISO-8601 date such as 2024-05-01T12:00:00Z")
                }
                return .date(d)
            default:
                if let n = v.numeric { return .date(Date(timeIntervalSinceReferenceDate: n.doubleValue)) }
            }
        case "NSArray": if let e = v.collectionElements { return .array(e) }
        case "NSSet": if let e = v.collectionElements { return .set(e) }
        case "NSData":
            if case .data = v { return v }
            if case .string(let s) = v, let d = Data(base64Encoded: s) { return .data(d) }
        default:
            throw EvalError.unsupported("CAST to '\(t)' is not supported",
                                        hint: "the types are NSString, NSNumber, NSDecimalNumber, NSDate, NSArray, NSSet and NSData")
        }
        throw EvalError.typeMismatch("CAST cannot turn \(v.kindDescription) into \(t)")
    }
}

/// `collection[index]`, `[FIRST]`, `[LAST]`, `[SIZE]` (reference §4.4).
enum IndexAccess {
    static func element(_ base: PredicateValue, _ index: IndexSubscript, _ value: PredicateValue?) throws(EvalError) -> PredicateValue {
        switch base {
        case .null: return .null
        case .array(let a), .set(let a):
            switch index {
            case .first: return a.first ?? .null
            case .last: return a.last ?? .null
            case .size: return .int(Int64(a.count))
            case .expression:
                let v = value ?? .null
                if case .set = base { return a.first { $0 == v } ?? .null }
                guard let i = integralIndex(v) else {
                    throw EvalError.index("an array index must be a whole number, not \(v.isNumber ? "\(v)" : v.kindDescription)")
                }
                guard i >= 0, i < a.count else {
                    throw EvalError.index("index \(i) is out of range for an array of \(a.count) element\(a.count == 1 ? "" : "s")",
                                          hint: "use [FIRST], [LAST] or test [SIZE] first")
                }
                return a[Int(i)]
            }
        case .dictionary(let d):
            switch index {
            case .size: return .int(Int64(d.count))
            case .first, .last: throw EvalError.index("a dictionary has no first or last element", hint: "index it with a key: d['key']")
            case .expression:
                let v = value ?? .null
                let key: String
                switch v {
                case .string(let s): key = s
                case .int(let i): key = String(i)
                default: throw EvalError.index("a dictionary key must be a string, not \(v.kindDescription)")
                }
                return d[key] ?? .null
            }
        default:
            throw EvalError.index("\(base.kindDescription) is not a collection and cannot be indexed")
        }
    }

    /// An array index: an integer, or a double or decimal with a whole value — JSON and
    /// arithmetic give `1.0`, which is still the number 1 (reference §4.4: `[n]` takes a number).
    static func integralIndex(_ v: PredicateValue) -> Int64? {
        switch v.numeric {
        case .int(let i)?: return i
        case .double(let d)? where d.rounded(.towardZero) == d && Swift.abs(d) < 9.2e18: return Int64(d)
        case .decimal(let d)? where d.rounded() == d && Swift.abs(NSDecimalNumber(decimal: d).doubleValue) < 9.2e18:
            return NSDecimalNumber(decimal: d).int64Value
        default: return nil
        }
    }
}

/// `UTI-CONFORMS-TO` and `UTI-EQUALS` without Apple's type database: equality is
/// case-insensitive, and conformance follows the common public type hierarchy.
enum UniformTypes {
    static func equal(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }

    static func conforms(_ a: String, to b: String) -> Bool {
        var current = a.lowercased()
        let target = b.lowercased()
        var steps = 0
        while steps < 16 {
            if current == target { return true }
            guard let parent = parents[current] else { return target == "public.item" }
            current = parent
            steps += 1
        }
        return false
    }

    private static let parents: [String: String] = [
        "public.jpeg": "public.image", "public.png": "public.image", "public.tiff": "public.image",
        "com.compuserve.gif": "public.image", "public.heic": "public.image", "public.svg-image": "public.image",
        "public.image": "public.data", "public.plain-text": "public.text", "public.utf8-plain-text": "public.plain-text",
        "public.html": "public.text", "public.xml": "public.text", "public.json": "public.text",
        "public.comma-separated-values-text": "public.text", "public.source-code": "public.plain-text",
        "public.swift-source": "public.source-code", "public.text": "public.data",
        "com.adobe.pdf": "public.data", "public.mpeg-4": "public.movie", "com.apple.quicktime-movie": "public.movie",
        "public.movie": "public.audiovisual-content", "public.mp3": "public.audio", "public.audio": "public.audiovisual-content",
        "public.audiovisual-content": "public.data", "public.zip-archive": "public.archive", "public.archive": "public.data",
        "public.data": "public.item", "public.folder": "public.directory", "public.directory": "public.item",
    ]
}
