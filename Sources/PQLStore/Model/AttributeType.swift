import Foundation

/// The type of a stored attribute, as Core Data names them.
///
/// Each type fixes the SQLite column type and how values are converted on the way in and out:
/// dates are REAL seconds since 2001-01-01 (decision D8), booleans INTEGER 0/1, UUIDs and URIs
/// TEXT, decimals REAL (as Core Data stores them; PQL reads them back as decimals).
///
/// ```swift
/// let age = ModelAttribute("age", .integer64)
/// ```
public enum AttributeType: String, Hashable, Sendable, CaseIterable, Codable {
    /// Text, stored as TEXT.
    case string
    /// A 16-bit integer, stored as INTEGER; values outside the range are refused on write.
    case integer16
    /// A 32-bit integer, stored as INTEGER; values outside the range are refused on write.
    case integer32
    /// A 64-bit integer, stored as INTEGER.
    case integer64
    /// A double, stored as REAL.
    case double
    /// A float, stored as REAL.
    case float
    /// A decimal, stored as REAL as Core Data does, read back as a decimal.
    case decimal
    /// A Boolean, stored as INTEGER 0 or 1.
    case boolean
    /// A date, stored as REAL seconds since 2001-01-01T00:00:00Z.
    case date
    /// Bytes, stored as a BLOB.
    case binary
    /// A UUID, stored as TEXT.
    case uuid
    /// A URI, stored as TEXT.
    case uri

    /// The declared SQLite column type.
    public var columnType: String {
        switch self {
        case .string, .uuid, .uri: return "TEXT"
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float, .decimal, .date: return "REAL"
        case .binary: return "BLOB"
        }
    }

    /// True for the integer types and booleans.
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: return true
        default: return false
        }
    }

    /// True for every type compared as a number in predicates.
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .boolean, .double, .float, .decimal: return true
        default: return false
        }
    }

    /// True for the types read back as strings (UUIDs and URIs read as their text).
    public var isText: Bool { self == .string || self == .uuid || self == .uri }

    /// The type's name with its indefinite article, for messages: "an integer64", "a string".
    var withArticle: String {
        switch self {
        case .integer16, .integer32, .integer64: return "an \(rawValue)"
        default: return "a \(rawValue)"
        }
    }

    /// The spelling in Xcode's model files (`Integer 64`, `Boolean`, `Binary`, …).
    public var xcodeName: String {
        switch self {
        case .string: return "String"
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .double: return "Double"
        case .float: return "Float"
        case .decimal: return "Decimal"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binary: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        }
    }

    /// The type with this name in a JSON model file or an Xcode model (`Integer 64`,
    /// `integer64`, `int64`, `Int`, `text`, … in any case).
    public init?(name: String) {
        let key = name.lowercased().filter { !$0.isWhitespace && $0 != "_" && $0 != "-" }
        switch key {
        case "string", "text", "str": self = .string
        case "integer16", "int16": self = .integer16
        case "integer32", "int32": self = .integer32
        case "integer64", "int64", "integer", "int": self = .integer64
        case "double", "real": self = .double
        case "float": self = .float
        case "decimal", "numeric": self = .decimal
        case "boolean", "bool": self = .boolean
        case "date", "datetime", "timestamp": self = .date
        case "binary", "binarydata", "data", "blob": self = .binary
        case "uuid": self = .uuid
        case "uri", "url": self = .uri
        default: return nil
        }
    }
}
