import Foundation
import PQL

extension StoreError {
    /// A record that does not decode as `type`: the entity, the record's key and the field
    /// (with what it held, or that it is missing), and how to make the type fit.
    package static func decoding(_ error: any Error, entity: String, id: Int64?, as type: Any.Type, fields: [String]) -> StoreError {
        let record = "cannot decode \(entity) \(id.map(String.init) ?? "?") as \(type)"
        let typeHint = "declare each property with a type its attribute reads as: String (also UUID, URL), Int or Int64, Double, Bool, Date, Data, Decimal, an optional where the value can be nil"
        guard let error = error as? DecodingError else {
            return StoreError(.invalidValue, "\(record): \(error)", hint: "\(type)'s init(from:) threw this error; check what it expects of the record")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            let known = fields.prefix(12).joined(separator: ", ") + (fields.count > 12 ? ", …" : "")
            return StoreError(.invalidValue, "\(record): the record has no field '\(field)'",
                              hint: "name the type's properties after \(entity)'s attributes and relationships (\(known)), or make '\(field)' optional")
        case .valueNotFound(let expected, let context):
            let field = path(context.codingPath)
            return StoreError(.invalidValue, "\(record): '\(field)' is nil, where \(expected) was expected",
                              hint: "make '\(field)' optional (\(expected)?)")
        case .typeMismatch(_, let context):
            return StoreError(.invalidValue, "\(record): '\(path(context.codingPath))': \(context.debugDescription)", hint: typeHint)
        case .dataCorrupted(let context):
            return StoreError(.invalidValue, "\(record): '\(path(context.codingPath))': \(context.debugDescription)", hint: typeHint)
        @unknown default:
            return StoreError(.invalidValue, "\(record): \(error)", hint: typeHint)
        }
    }

    /// `author.name`, `tags[2]`.
    private static func path(_ keys: [any CodingKey]) -> String {
        var out = ""
        for k in keys {
            if let i = k.intValue, k is IndexKey || k.stringValue.hasPrefix("Index ") { out += "[\(i)]" } else { out += (out.isEmpty ? "" : ".") + k.stringValue }
        }
        return out.isEmpty ? "(the record)" : out
    }
}
