/// Where a stored property lies inside its root value, for string and array accessors declared
/// with a key path (`.string(\.email)`, `.strings(\.tags)`): `ANY tags == 'x'`, `email != nil`
/// and `city == 'Paris'` read such a property where it lies instead of calling a closure that
/// returns a copy.
///
/// A closure accessor such as `{ $0.tags }` returns its array retained, and the test releases
/// it: two atomic operations per element, which cost `ANY tags == 'vip'` (P7 of the
/// benchmarks) a third of its time against a hand-written closure that borrows the array.
/// Read through its offset, the property is lent as ``ElementBorrow`` lends elements: its bits
/// are moved out (a read: the root is not written and nothing is retained) and parked in a
/// slot that is never deinitialized, so the root keeps owning the value.
///
/// Only bitwise-takable values (strings, arrays of strings, and their optionals) are lent this way, and only
/// from roots whose layout puts the property at a fixed offset: a struct's stored property
/// (`MemoryLayout.offset(of:)` is nil for classes, computed properties and resilient types).
struct StoredField: Sendable {
    let offset: Int
    /// Whether the property is an optional (`String?`, `[String]?`) rather than the value itself.
    let isOptional: Bool

    /// The field of `path` in `Root`, when it has a fixed offset and its value can be lent.
    init?<Root, Value>(_ path: KeyPath<Root, Value>, isOptional: Bool) {
        guard _isBitwiseTakable(Value.self), let offset = MemoryLayout<Root>.offset(of: path) else { return nil }
        self.offset = offset
        self.isOptional = isOptional
    }

    /// A copy of the field's value in `root`, read at its offset: what the accessor's closure
    /// returns. `root[keyPath:]` walks the key path's components in the runtime, about 400
    /// instructions per read, where a user's closure `{ $0.name }` is a load; this is a load,
    /// from the root's own storage (`withUnsafeBytes(of:)` borrows it, nothing is copied but the
    /// field).
    @inline(__always)
    func read<Root, Value>(_ type: Value.Type, in root: Root) -> Value {
        withUnsafeBytes(of: root) { $0.load(fromByteOffset: offset, as: Value.self) }
    }

    /// A copy of the `String` or `String?` at `p`, the field's address.
    @inline(__always)
    func loadString(at p: UnsafeRawPointer) -> String? {
        isOptional ? p.load(as: String?.self) : p.load(as: String.self)
    }

    /// The field's address in the element under test, when the loop lends elements from their
    /// buffer (``EvaluationState/element``); nil otherwise, and the accessor's closure reads it.
    ///
    /// Not `withUnsafePointer(to: root)`: the root's type is generic where the steps are
    /// compiled, so that call stayed generic, with its closure behind thunks, and cost more
    /// than the copy it saved.
    @inline(__always)
    func address(in state: EvaluationState) -> UnsafeRawPointer? {
        state.element.map { $0 + offset }
    }
}

extension UnsafeRawPointer {
    /// The `[String]` here, lent to `body`: moved out (a read: nothing retained, nothing
    /// written) and parked in a slot that is never deinitialized, as ``ElementBorrow`` does.
    /// `body` does not throw: a throwing one made the temporary allocation pass its answer
    /// through a `Result`, which cost more than the retain saved.
    @inline(__always)
    func lendStrings(_ body: ([String]) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: [String].self, capacity: 1) { slot -> Bool in
            let lent = UnsafeMutablePointer(mutating: assumingMemoryBound(to: [String].self)).move()
            let answer = body(lent)
            slot.baseAddress!.initialize(to: consume lent)   // never deinitialized: the element owns it
            return answer
        }
    }

    /// The `[String]?` here, lent as ``lendStrings(_:)`` lends a `[String]`. Written out, not
    /// one generic lender: a generic `lend<T>` measured 23 instructions more per element on P7.
    @inline(__always)
    func lendOptionalStrings(_ body: ([String]?) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: [String]?.self, capacity: 1) { slot -> Bool in
            let lent = UnsafeMutablePointer(mutating: assumingMemoryBound(to: [String]?.self)).move()
            let answer = body(lent)
            slot.baseAddress!.initialize(to: consume lent)
            return answer
        }
    }

    /// The `String` here, lent to `body` as ``lendStrings(_:)`` lends an array: a string with
    /// heap storage is not retained. Only literal tests are lent one (equality, `!=`, `IN` a few
    /// strings): they do not throw (see ``lendStrings(_:)``).
    @inline(__always)
    func lendString(_ body: (String) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: String.self, capacity: 1) { slot -> Bool in
            let lent = UnsafeMutablePointer(mutating: assumingMemoryBound(to: String.self)).move()
            let answer = body(lent)
            slot.baseAddress!.initialize(to: consume lent)
            return answer
        }
    }

    /// The `String?` here, lent as ``lendString(_:)`` lends a `String`.
    @inline(__always)
    func lendOptionalString(_ body: (String?) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: String?.self, capacity: 1) { slot -> Bool in
            let lent = UnsafeMutablePointer(mutating: assumingMemoryBound(to: String?.self)).move()
            let answer = body(lent)
            slot.baseAddress!.initialize(to: consume lent)
            return answer
        }
    }
}
