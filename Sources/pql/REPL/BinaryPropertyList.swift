import Foundation
import PQL

/// A binary property list (`bplist00`) read into ``PredicateValue``s by PQL itself, not by
/// Foundation: its objects may refer to one object many times, and Foundation expands every
/// reference into a copy, so that 400 bytes of arrays that each hold the previous one twice
/// ("billion laughs") never finish. Here each object is converted once and shared (an array
/// value is shared, not copied), and what the references expand to is counted: past
/// ``maxValues`` (or a cycle, or nesting deeper than ``maxDepth``) the file is refused, in
/// time and memory that grow with the file, not with the expansion. Errors name the byte
/// offset of the object at fault and what is wrong with it.
///
/// The format: the header `bplist00`, the objects, a table of their offsets, and a 32-byte
/// trailer giving the sizes of offsets and references, the number of objects, the top object
/// and where the table starts. Each object opens with a marker byte, its kind in the high
/// nibble and its length (or 15, with the length as an integer object after it) in the low.
struct BinaryPropertyList {
    /// What a file's references may expand to: far beyond any property list written by
    /// hand or by an app, far below what hangs (Foundation took 94 s for a million).
    static let maxValues = 10_000_000
    /// Deeper nesting is refused, as JSON's is (``JSONReader/maxDepth``).
    static let maxDepth = JSONReader.maxDepth

    /// A binary property list PQL cannot read, at a byte offset when one is to blame.
    struct Problem: Error {
        let message: String
        let offset: Int?
        /// What to do, when it is not to repair the file.
        var hint: String? = nil
        var description: String { offset.map { "byte \($0): \(message)" } ?? message }
    }

    static func isBinary(_ data: Data) -> Bool { data.starts(with: Array("bplist".utf8)) }

    /// The top object of the property list in `data`.
    static func read(_ data: Data) throws(Problem) -> PredicateValue {
        var reader = try BinaryPropertyList([UInt8](data))
        return try reader.value(reader.top, depth: 0)
    }

    private let b: [UInt8]
    private let refSize: Int
    private let offsets: [Int]
    private let top: Int
    /// Where objects may end: the start of the trailer.
    private let end: Int
    /// Each object's value once converted, and how many values it expands to.
    private var done: [(value: PredicateValue, count: Int)?]
    private var inProgress: [Bool]

    private init(_ b: [UInt8]) throws(Problem) {
        self.b = b
        guard b.count >= 8 + 32, b.starts(with: Array("bplist00".utf8)) else {
            throw Problem(message: b.starts(with: Array("bplist".utf8)) && b.count >= 8
                ? "the binary property list is of version \(String(decoding: b[6..<8], as: UTF8.self)); PQL reads version 00"
                : "the binary property list is cut short: it has no trailer", offset: nil)
        }
        end = b.count - 32
        let offsetSize = Int(b[end + 6]), refSize = Int(b[end + 7])
        let count = Self.uint(b, end + 8, 8), top = Self.uint(b, end + 16, 8), table = Self.uint(b, end + 24, 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw Problem(message: "the file is cut short or damaged: its last 32 bytes are no trailer (they give offsets of \(offsetSize) and references of \(refSize) bytes, where both are 1 to 8)", offset: end)
        }
        // Every object takes a byte at least: more objects than bytes is a damaged trailer.
        guard count >= 1, count <= UInt64(b.count), top < count, table >= 8, table <= UInt64(end),
              (UInt64(end) - table) / UInt64(offsetSize) >= count else {
            throw Problem(message: "the file is cut short or damaged: its trailer's \(count) objects (the top one \(top)), with their offsets at byte \(table), do not fit its \(b.count) bytes", offset: end)
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            let at = Int(table) + i * offsetSize
            let o = Self.uint(b, at, offsetSize)
            guard o >= 8, o < table else {
                throw Problem(message: "object \(i) is said to start at byte \(o), outside the objects (bytes 8 to \(table - 1))", offset: at)
            }
            offsets.append(Int(o))
        }
        self.refSize = refSize
        self.offsets = offsets
        self.top = Int(top)
        done = Array(repeating: nil, count: Int(count))
        inProgress = Array(repeating: false, count: Int(count))
    }

    private static func uint(_ b: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<size { v = v << 8 | UInt64(b[at + k]) }
        return v
    }

    /// `n` bytes at `at`, inside the objects, or an error about the object at `object`.
    private func bytes(_ at: Int, _ n: Int, object: Int) throws(Problem) -> ArraySlice<UInt8> {
        guard n >= 0, at <= end, n <= end - at else {
            throw Problem(message: "the object runs past the end of the objects (it needs \(n) bytes from byte \(at))", offset: object)
        }
        return b[at..<(at + n)]
    }

    /// Object `i`'s value, each object converted once, expansions counted.
    private mutating func value(_ i: Int, depth: Int) throws(Problem) -> PredicateValue {
        if let d = done[i] { return d.value }
        let at = offsets[i]
        guard !inProgress[i] else { throw Problem(message: "object \(i) contains itself (a cycle of references)", offset: at) }
        guard depth < Self.maxDepth else { throw Problem(message: "the property list nests deeper than \(Self.maxDepth) levels", offset: at) }
        inProgress[i] = true
        defer { inProgress[i] = false }
        let (v, count) = try object(at, depth: depth)
        done[i] = (v, count)
        return v
    }

    private func count(of i: Int) -> Int { done[i]?.count ?? 1 }

    /// The value at `at` and how many values it expands to (itself and everything inside).
    private mutating func object(_ at: Int, depth: Int) throws(Problem) -> (PredicateValue, Int) {
        let marker = try bytes(at, 1, object: at).first!
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return (.null, 1)
            case 0x08: return (.bool(false), 1)
            case 0x09: return (.bool(true), 1)
            default: throw Problem(message: String(format: "marker 0x%02X is no value", marker), offset: at)
            }
        case 0x1: return (try integer(at, low), 1)
        case 0x2:
            guard low == 2 || low == 3 else { throw Problem(message: "a real number of \(1 << low) bytes; reals have 4 or 8", offset: at) }
            let raw = Self.uint(Array(try bytes(at + 1, 1 << low, object: at)), 0, 1 << low)
            return (.double(low == 2 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)), 1)
        case 0x3:
            guard marker == 0x33 else { throw Problem(message: String(format: "marker 0x%02X is no value", marker), offset: at) }
            let raw = Self.uint(Array(try bytes(at + 1, 8, object: at)), 0, 8)
            let seconds = Double(bitPattern: raw)
            guard seconds.isFinite else { throw Problem(message: "a date that is not a finite number of seconds", offset: at) }
            return (.date(Date(timeIntervalSinceReferenceDate: seconds)), 1)
        case 0x4:
            let (n, start) = try length(at, low)
            return (.data(Data(try bytes(start, n, object: at))), 1)
        case 0x5:
            let (n, start) = try length(at, low)
            let s = try bytes(start, n, object: at)
            guard s.allSatisfy({ $0 < 0x80 }) else { throw Problem(message: "an ASCII string holds a byte above 0x7F", offset: at) }
            return (.string(String(decoding: s, as: UTF8.self)), 1)
        case 0x6:
            let (n, start) = try length(at, low)
            guard n <= (end - start) / 2 else { throw Problem(message: "the string runs past the end of the objects", offset: at) }
            let s = try bytes(start, 2 * n, object: at)
            let units = stride(from: s.startIndex, to: s.endIndex, by: 2).map { UInt16(s[$0]) << 8 | UInt16(s[$0 + 1]) }
            return (.string(String(decoding: units, as: UTF16.self)), 1)
        case 0x8:
            throw Problem(message: "a UID (a reference of an NSKeyedArchiver archive) is no value PQL reads", offset: at)
        case 0xA, 0xB, 0xC:
            let (n, start) = try length(at, low)
            let refs = try references(start, n, object: at)
            var items: [PredicateValue] = []
            items.reserveCapacity(n)
            var total = 1
            for r in refs {
                items.append(try value(r, depth: depth + 1))
                total = try add(total, count(of: r), at)
            }
            return (marker >> 4 == 0xA ? .array(items) : .set(items), total)
        case 0xD:
            let (n, start) = try length(at, low)
            guard n <= (end - start) / 2 else { throw Problem(message: "the dictionary runs past the end of the objects", offset: at) }
            let keys = try references(start, n, object: at), values = try references(start + n * refSize, n, object: at)
            var d: [String: PredicateValue] = [:]
            d.reserveCapacity(n)
            var total = 1
            for (k, v) in zip(keys, values) {
                guard case .string(let key) = try value(k, depth: depth + 1) else {
                    throw Problem(message: "a dictionary key (object \(k)) is not a string", offset: at)
                }
                if let earlier = d.index(forKey: key) {
                    throw Problem(message: JSONKeys.duplicate(d.keys[earlier], key, in: "a dictionary"), offset: at)
                }
                d[key] = try value(v, depth: depth + 1)
                total = try add(total, count(of: k) + count(of: v), at)
            }
            return (.dictionary(d), total)
        default:
            throw Problem(message: String(format: "marker 0x%02X is no value", marker), offset: at)
        }
    }

    /// A running expansion count, refused past ``maxValues``.
    private func add(_ total: Int, _ more: Int, _ at: Int) throws(Problem) -> Int {
        let (sum, overflow) = total.addingReportingOverflow(more)
        guard !overflow, sum <= Self.maxValues else {
            throw Problem(message: "the property list's shared references expand to more than \(Self.maxValues.formatted()) values (it holds \(offsets.count.formatted()) objects)", offset: at,
                          hint: "PQL refuses property lists whose objects are shared this often, as it refuses ZIP bombs; export the data as JSON Lines instead")
        }
        return sum
    }

    /// An integer object: 1, 2 and 4 bytes unsigned, 8 signed, 16 (what writers use beyond
    /// Int64) kept when it fits 64 bits.
    private func integer(_ at: Int, _ low: Int) throws(Problem) -> PredicateValue {
        guard low <= 4 else { throw Problem(message: "an integer of \(1 << low) bytes; integers have 1 to 16", offset: at) }
        let size = 1 << low
        let raw = Array(try bytes(at + 1, size, object: at))
        switch size {
        case 8: return .int(Int64(bitPattern: Self.uint(raw, 0, 8)))
        case 16:
            let high = Self.uint(raw, 0, 8), lowWord = Self.uint(raw, 8, 8)
            if high == 0 { return lowWord <= UInt64(Int64.max) ? .int(Int64(lowWord)) : .decimal(Decimal(lowWord)) }
            if high == .max, lowWord >> 63 == 1 { return .int(Int64(bitPattern: lowWord)) }
            throw Problem(message: "an integer beyond 64 bits", offset: at)
        default: return .int(Int64(Self.uint(raw, 0, size)))
        }
    }

    /// A length from a marker's low nibble, or from the integer after it when that is 15;
    /// and where the contents start.
    private func length(_ at: Int, _ low: Int) throws(Problem) -> (Int, Int) {
        guard low == 0x0F else { return (low, at + 1) }
        let m = try bytes(at + 1, 1, object: at).first!
        guard m >> 4 == 0x1, m & 0x0F <= 3 else { throw Problem(message: "a length that is not an integer object", offset: at) }
        let size = 1 << Int(m & 0x0F)
        let n = Self.uint(Array(try bytes(at + 2, size, object: at)), 0, size)
        guard n <= UInt64(end) else { throw Problem(message: "a length of \(n) runs past the end of the objects", offset: at) }
        return (Int(n), at + 2 + size)
    }

    /// `n` object references from `start`, each checked to name an object.
    private func references(_ start: Int, _ n: Int, object at: Int) throws(Problem) -> [Int] {
        guard n <= (end - min(start, end)) / refSize else { throw Problem(message: "the collection runs past the end of the objects", offset: at) }
        let raw = try bytes(start, n * refSize, object: at)
        return try (0..<n).map { (k) throws(Problem) -> Int in
            let r = Self.uint(Array(raw[(start + k * refSize)..<(start + (k + 1) * refSize)]), 0, refSize)
            guard r < UInt64(offsets.count) else { throw Problem(message: "a reference to object \(r), of \(offsets.count) objects", offset: at) }
            return Int(r)
        }
    }
}
