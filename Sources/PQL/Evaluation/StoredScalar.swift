/// A dictionary value of one of the four types the fast paths test directly, told apart by the
/// value's own type metadata rather than by a dynamic cast.
///
/// `[String: Any]` values reach the fast paths as `Any`. `type(of: v) == Int.self` followed by
/// `v as! Int` costs two trips into the runtime: `type(of:)` looks through class instances
/// for their dynamic class, and the cast walks the runtime's cast machinery (about 270
/// instructions together, more than the dictionary lookup). Opening the existential instead
/// hands a generic function the metadata the `Any` was stored with, and a pointer compare
/// against `Int.self` decides.
///
/// This is exact for the four types: they are structs, so the stored metadata is the dynamic
/// type, and an `Any` never holds another existential (boxing one opens it). A class instance
/// (an `NSNumber`, say) opens as its class type, never one of the four, so it goes to the
/// general path as it did with `type(of:)`; so do optionals, other integer widths, `Bool` and
/// `Substring`, whose metadata differ.
enum StoredScalar {
    case int(Int)
    case double(Double)
    case string(String)
    case strings([String])
    case other

    /// The value `v` holds, if it is exactly an `Int`, `Double`, `String` or `[String]`.
    @inline(__always)
    init(_ v: Any) {
        self = Self.opened(v)
    }

    // `v` is opened here (SE-0352): `T` is the metadata the `Any` holds. With `T` equal to the
    // target, the bit cast is a copy of a value of that very type.
    @inline(__always)
    private static func opened<T>(_ v: T) -> StoredScalar {
        if T.self == Int.self { return .int(unsafeBitCast(v, to: Int.self)) }
        if T.self == String.self { return .string(unsafeBitCast(v, to: String.self)) }
        if T.self == Double.self { return .double(unsafeBitCast(v, to: Double.self)) }
        if T.self == [String].self { return .strings(unsafeBitCast(v, to: [String].self)) }
        return .other
    }
}
