import Foundation
import PQL

// The JSON model-file format is documented on `StoreModel.init(json:)`, where DocC shows it.

extension StoreModel {
    /// Reads a model from a JSON model file, then validates it as ``init(_:templates:names:)`` does.
    ///
    /// A model file is one JSON object. Keys are case-sensitive, and a key the format does not
    /// know is an error naming the nearest valid key, so that a typo (`"optinal": false`) cannot
    /// silently leave an attribute optional. Optional keys may be left out or written `null`.
    ///
    /// - `entities` (required): an array of entities, kept in order. Each has
    ///   `name` (required), `parent` (the parent entity's name), `abstract` (default `false`),
    ///   `table` (default the name), `primaryKey` (default `"Z_PK"`), `attributes`,
    ///   `relationships`, `indexes` and `uniqueness` (arrays of attribute-name arrays), and `renamingIdentifier` (or
///   `previousName`: its name in the previous model version, so that a store saved with that
///   version renames it; attributes and relationships take it too).
    /// - An attribute has `name` and `type` (required; `string`, `integer16`, `integer32`,
    ///   `integer64`, `double`, `float`, `decimal`, `boolean`, `date`, `binary`, `uuid`, `uri`, or
    ///   an alias such as `"Integer 64"`, `"int"`, `"text"`), `optional` (default `true`),
    ///   `default`, `indexed` and `unique` (default `false`), `column` (default the name), and
    ///   `untyped` (default `false`: `true` for an SQLite column declared without a type, whose
    ///   values keep their own kinds).
    ///   A `default` is a JSON value of the attribute's type: dates as an ISO-8601 string or
    ///   `{"$date": "…"}`, decimals as a number or a numeric string (`"12.50"`, exact), doubles
    ///   also `"NaN"`, `"Infinity"`, `"-Infinity"`, binary data as a base64 string.
    /// - A relationship has `name` and `destination` (required), `toMany` (default `false`),
    ///   `inverse`, `deleteRule` (`nullify` (default), `cascade`, `deny`, `noAction`),
    ///   `optional` (default `true`), `foreignKey` (a to-one's column, default the name) and
    ///   `references` (the destination column it refers to, default its primary key). A
    ///   to-many whose inverse is a to-many too is many-to-many, its links rows of a join table:
    ///   `joinTable` (default the first side's entity and relationship names, `Note_tags`, the
    ///   sides ordered by entity name, then relationship name), `joinColumn` (the column holding
    ///   this side's key, default the inverse's name) and `inverseJoinColumn` (the column
    ///   holding the destination's key, default the relationship's name); give them on one side
    ///   or on both, swapped.
    /// - `templates`: fetch templates, each with `name` and `entity` (required), `predicate`
    ///   (default `"TRUEPREDICATE"`; `$name` marks a variable), `sort` (strings
    ///   `"key.path"` followed by any of `:asc`, `:desc`, `:ci`, `:localized`, `:literal`)
    ///   and `limit` (a non-negative integer).
    ///
    /// ``jsonData()`` writes this format back. Errors are ``StoreError/Kind/modelFile`` for
    /// anything the file spells wrong (the message names the JSON path and the entity or
    /// attribute, the hint what is expected) and ``StoreError/Kind/invalidModel`` for a
    /// well-formed file describing an inconsistent model (the message ends with the JSON path).
    ///
    /// ```swift
    /// let model = try StoreModel(json: Data(#"""
    ///     {"entities": [{"name": "Airline", "attributes": [{"name": "carrier", "type": "string", "optional": false}]}],
    ///      "templates": [{"name": "ByCode", "entity": "Airline", "predicate": "carrier ==[c] $code", "sort": ["carrier:desc"]}]}
    ///     """#.utf8))
    /// ```
    public init(json: Data) throws(StoreError) {
        self = try ModelJSONDecoder.decode(json, file: nil)
    }

    /// Reads a model from a JSON model file, as ``init(json:)`` does, checking its names by
    /// `names`' rules (`.postgreSQL` for a model a PostgreSQL store saved or will use).
    ///
    /// ```swift
    /// let model = try StoreModel(json: data, names: .postgreSQL)
    /// ```
    public init(json: Data, names: NameRules) throws(StoreError) {
        self = try ModelJSONDecoder.decode(json, file: nil, names: names)
    }

    /// Reads a model file, choosing the reader by its name: `*.json` is the JSON model format;
    /// a `.xcdatamodeld` or `.xcdatamodel` directory, or a file named `contents`, is an Xcode
    /// Core Data model (``init(xcdatamodel:)``).
    ///
    /// ```swift
    /// let model = try StoreModel(contentsOf: URL(fileURLWithPath: "Flights.xcdatamodeld"))
    /// ```
    public init(contentsOf url: URL) throws(StoreError) {
        switch url.pathExtension.lowercased() {
        case "json":
            self = try ModelJSONDecoder.decode(ModelFiles.read(url), file: url.lastPathComponent)
        case "xcdatamodeld", "xcdatamodel":
            self = try StoreModel(xcdatamodel: url)
        default:
            guard url.lastPathComponent == "contents" else {
                throw StoreError(.modelFile, "'\(url.path)' is not a model file PQL can read",
                                 hint: "give a .json model file, an Xcode .xcdatamodeld or .xcdatamodel directory, or the 'contents' file inside one")
            }
            self = try StoreModel(xcdatamodel: url)
        }
    }

    /// The model in the JSON model-file format (see ``init(json:)``), pretty-printed with sorted
    /// keys, so that files written by PQL diff cleanly and read back into an equal model.
    ///
    /// Keys holding their default are left out, except `parent` and `inverse` (written `null`,
    /// so a reader sees there is none). Decimal defaults are written as strings, to keep every
    /// digit; date defaults as `{"$date": …}` to the microsecond.
    ///
    /// ```swift
    /// try model.jsonData().write(to: URL(fileURLWithPath: "model.json"))
    /// ```
    public func jsonData() -> Data {
        var out = ""
        ModelJSONEncoder.write(ModelJSONEncoder.model(self), indent: "", to: &out)
        out += "\n"
        return Data(out.utf8)
    }
}

// MARK: - Shared by both loaders

enum ModelFiles {
    static func read(_ url: URL) throws(StoreError) -> Data {
        do { return try Data(contentsOf: url) } catch {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            if !exists { throw StoreError(.modelFile, "model file '\(url.path)' does not exist") }
            if isDirectory.boolValue {
                throw StoreError(.modelFile, "'\(url.path)' is a directory, not a model file",
                                 hint: "name a .json file, or an Xcode model directory ending in .xcdatamodeld or .xcdatamodel")
            }
            throw StoreError(.modelFile, "cannot read model file '\(url.path)': \(InputFile.reason(error))")
        }
    }

    /// "did you mean 'x'? valid: a, b, c": the guess for the typo, the list for everything else.
    static func didYouMean(_ word: String, _ candidates: [String]) -> String {
        let near = SharedSemantics.nearestNames(to: word, in: candidates)
        let list = "valid: \(candidates.joined(separator: ", "))"
        guard !near.isEmpty else { return list }
        return "did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))? \(list)"
    }

    /// Checks a template's predicate text now, so a typo surfaces when the model loads rather
    /// than at the first fetch.
    static func checkPredicate(_ text: String) -> String? {
        do throws(PredicateFormatError) { _ = try PredicateNode(format: text); return nil } catch { return error.description }
    }
}

/// Where each entity, property and template came from in the file, to point the model
/// validator's errors (which name their subject in ``StoreError/entity``,
/// ``StoreError/property`` and ``StoreError/template``) at the place to fix.
struct ModelLocations {
    var entities: [String: String] = [:]
    /// Keyed by "Entity.property".
    var properties: [String: String] = [:]
    var templates: [String: String] = [:]

    func annotate(_ e: StoreError) -> StoreError {
        guard let place = locate(e) else { return e }
        return e.reworded("\(e.message) (\(place))")
    }

    private func locate(_ e: StoreError) -> String? {
        if let template = e.template { return templates[template] }
        guard let entity = e.entity else { return nil }
        if let property = e.property, let place = properties["\(entity).\(property)"] { return place }
        return entities[entity]
    }
}

// MARK: - Decoding

enum ModelJSONDecoder {
    static let modelKeys = ["entities", "templates"]
    static let entityKeys = ["name", "parent", "abstract", "table", "primaryKey", "attributes", "relationships", "indexes", "uniqueness", "renamingIdentifier", "previousName"]
    static let attributeKeys = ["name", "type", "optional", "default", "indexed", "unique", "column", "renamingIdentifier", "previousName", "untyped"]
    static let relationshipKeys = ["name", "destination", "toMany", "inverse", "deleteRule", "optional", "foreignKey", "references",
                                   "joinTable", "joinColumn", "inverseJoinColumn", "renamingIdentifier", "previousName"]
    static let templateKeys = ["name", "entity", "predicate", "sort", "limit"]

    static func decode(_ data: Data, file: String?, names: StoreModel.NameRules = .sqlite) throws(StoreError) -> StoreModel {
        do throws(StoreError) {
            return try decode(data, names: names)
        } catch {
            guard let file else { throw error }
            throw error.reworded("\(file): \(error.message)")
        }
    }

    private static func decode(_ data: Data, names: StoreModel.NameRules) throws(StoreError) -> StoreModel {
        let root: PredicateValue
        do throws(JSONReadError) { root = try JSONReader.value(from: [UInt8](data)) } catch {
            throw StoreError(.modelFile, "the model is not valid JSON: \(error)",
                             hint: "a model file is one JSON object: {\"entities\": [...], \"templates\": [...]}")
        }
        let top = try Fields(root, path: "", keys: modelKeys, subject: "model")
        var locations = ModelLocations()
        var entities: [ModelEntity] = []
        for (i, value) in try top.array("entities", required: true).enumerated() {
            let e: ModelEntity
            do throws(StoreError) { e = try entity(value, path: "entities[\(i)]", locations: &locations) } catch {
                throw error.about(entity: Self.name(of: value))
            }
            entities.append(e)
        }
        var templates: [FetchTemplate] = []
        for (i, value) in try top.array("templates").enumerated() {
            let path = "templates[\(i)]"
            let t: FetchTemplate
            do throws(StoreError) { t = try template(value, path: path) } catch { throw error.about(template: Self.name(of: value)) }
            locations.templates[t.name] = path
            templates.append(t)
        }
        do throws(StoreError) { return try StoreModel(entities, templates: templates, names: names) } catch { throw locations.annotate(error) }
    }

    /// The `"name"` of a model object, for naming the subject of its errors.
    private static func name(of value: PredicateValue) -> String? {
        if case .dictionary(let d) = value, case .string(let name)? = d["name"], !name.isEmpty { return name }
        return nil
    }

    private static func entity(_ value: PredicateValue, path: String, locations: inout ModelLocations) throws(StoreError) -> ModelEntity {
        let f = try Fields(value, path: path, keys: entityKeys, subject: "entity") { "entity \($0)" }
        let name = try f.name()
        locations.entities[name] = path
        var e = ModelEntity(name, parent: try f.string("parent"), isAbstract: try f.bool("abstract") ?? false,
                            table: try f.string("table"), primaryKey: try f.string("primaryKey") ?? "Z_PK")
        for (i, v) in try f.array("attributes").enumerated() {
            let p = "\(path).attributes[\(i)]"
            let a: ModelAttribute
            do throws(StoreError) { a = try attribute(v, path: p, entity: name) } catch {
                throw error.about(entity: name, property: Self.name(of: v))
            }
            locations.properties["\(name).\(a.name)"] = p
            e.attributes.append(a)
        }
        for (i, v) in try f.array("relationships").enumerated() {
            let p = "\(path).relationships[\(i)]"
            let r: ModelRelationship
            do throws(StoreError) { r = try relationship(v, path: p, entity: name) } catch {
                throw error.about(entity: name, property: Self.name(of: v))
            }
            locations.properties["\(name).\(r.name)"] = p
            e.relationships.append(r)
        }
        e.indexes = try f.groups("indexes")
        e.uniqueness = try f.groups("uniqueness")
        e.renamingIdentifier = try renamingIdentifier(f)
        return e
    }

    private static func attribute(_ value: PredicateValue, path: String, entity: String) throws(StoreError) -> ModelAttribute {
        let f = try Fields(value, path: path, keys: attributeKeys, subject: "attribute of entity \(entity)") { "attribute \(entity).\($0)" }
        let name = try f.name()
        guard let typeName = try f.string("type") else {
            throw f.error("type", "has no \"type\"", hint: "give one of: \(typeNames.joined(separator: ", "))", atKey: false)
        }
        guard let type = AttributeType(name: typeName) else {
            throw f.error("type", "unknown attribute type '\(typeName)'", hint: ModelFiles.didYouMean(typeName, typeNames))
        }
        var a = ModelAttribute(name, type, isOptional: try f.bool("optional") ?? true,
                               isIndexed: try f.bool("indexed") ?? false, isUnique: try f.bool("unique") ?? false,
                               column: try f.string("column"), renamingIdentifier: try renamingIdentifier(f))
        a.isUntyped = try f.bool("untyped") ?? false
        if let v = f.fields["default"] {
            do throws(ValueProblem) { a.defaultValue = try defaultValue(v, type) } catch {
                throw f.error("default", "default value \(describe(v)) does not fit type \(type.rawValue): \(error.message)", hint: error.hint)
            }
        }
        return a
    }

    static var typeNames: [String] { AttributeType.allCases.map(\.rawValue) }

    private static func relationship(_ value: PredicateValue, path: String, entity: String) throws(StoreError) -> ModelRelationship {
        let f = try Fields(value, path: path, keys: relationshipKeys, subject: "relationship of entity \(entity)") { "relationship \(entity).\($0)" }
        let name = try f.name()
        guard let destination = try f.string("destination") else {
            throw f.error("destination", "has no \"destination\"", hint: "name the entity the relationship leads to", atKey: false)
        }
        var rule = ModelRelationship.DeleteRule.nullify
        if let text = try f.string("deleteRule") {
            guard let r = deleteRule(text) else {
                throw f.error("deleteRule", "unknown delete rule '\(text)'",
                              hint: ModelFiles.didYouMean(text, ModelRelationship.DeleteRule.allCases.map(\.rawValue)))
            }
            rule = r
        }
        var r = ModelRelationship(name, to: destination, inverse: try f.string("inverse"), deleteRule: rule,
                                  isOptional: try f.bool("optional") ?? true, foreignKeyColumn: try f.string("foreignKey"),
                                  referencedColumn: try f.string("references"))
        r.isToMany = try f.bool("toMany") ?? false
        r.joinTable = try f.string("joinTable")
        r.joinColumn = try f.string("joinColumn")
        r.inverseJoinColumn = try f.string("inverseJoinColumn")
        r.renamingIdentifier = try renamingIdentifier(f)
        return r
    }

    /// `renamingIdentifier` (Core Data's name), or `previousName`; not both.
    private static func renamingIdentifier(_ f: Fields) throws(StoreError) -> String? {
        let core = try f.string("renamingIdentifier"), previous = try f.string("previousName")
        if let core, let previous, core != previous {
            throw f.error("previousName", "gives both \"renamingIdentifier\" and \"previousName\"", hint: "keep one: they mean the same", atKey: true)
        }
        return core ?? previous
    }

    static func deleteRule(_ text: String) -> ModelRelationship.DeleteRule? {
        let key = text.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" }
        return ModelRelationship.DeleteRule.allCases.first { $0.rawValue.lowercased() == key }
    }

    private static func template(_ value: PredicateValue, path: String) throws(StoreError) -> FetchTemplate {
        let f = try Fields(value, path: path, keys: templateKeys, subject: "template") { "template \($0)" }
        let name = try f.name()
        guard let entity = try f.string("entity") else {
            throw f.error("entity", "has no \"entity\"", hint: "name the entity the template fetches", atKey: false)
        }
        let predicate = try f.string("predicate") ?? "TRUEPREDICATE"
        if let problem = ModelFiles.checkPredicate(predicate) {
            throw f.error("predicate", "the predicate does not parse: \(problem)", hint: "write an NSPredicate format string; $name marks a variable")
        }
        var sort: [SortRule] = []
        for (i, v) in try f.array("sort").enumerated() {
            guard case .string(let text) = v else {
                throw f.error("sort[\(i)]", "expected a sort string such as \"name:desc\", found \(describe(v))")
            }
            do throws(ValueProblem) { sort.append(try sortRule(text)) } catch { throw f.error("sort[\(i)]", error.message, hint: error.hint) }
        }
        var limit: Int?
        if let v = f.fields["limit"], !v.isNull {
            guard case .int(let n) = v, n >= 0, let l = Int(exactly: n) else {
                throw f.error("limit", "expected a non-negative integer, found \(describe(v))")
            }
            limit = l
        }
        return FetchTemplate(name: name, entity: entity, predicate: predicate, sort: sort, limit: limit)
    }

    /// `key.path[:asc|:desc][:ci|:localized|:literal]` (``SortRule/init(spec:)``).
    static func sortRule(_ text: String) throws(ValueProblem) -> SortRule {
        do { return try SortRule(spec: text) } catch {
            switch error.kind {
            case .missingKeyPath:
                throw ValueProblem("sort '\(text)' has no valid key path", hint: "write \"key\" or \"key.path\", then options such as \":desc\" or \":ci\"")
            case .unknownModifier(let option):
                throw ValueProblem("unknown sort option '\(option)' in '\(text)'", hint: ModelFiles.didYouMean(option, SortRule.specModifiers))
            }
        }
    }

    struct ValueProblem: Error {
        let message: String
        let hint: String?
        init(_ message: String, hint: String? = nil) { self.message = message; self.hint = hint }
    }

    /// A JSON default converted to the attribute's type; nil for `null`.
    static func defaultValue(_ v: PredicateValue, _ type: AttributeType) throws(ValueProblem) -> PredicateValue? {
        if v.isNull { return nil }
        switch type {
        case .integer16, .integer32, .integer64:
            let range: ClosedRange<Int64> = type == .integer16 ? Int64(Int16.min)...Int64(Int16.max)
                : type == .integer32 ? Int64(Int32.min)...Int64(Int32.max) : Int64.min...Int64.max
            guard case .int(let i) = v else { throw ValueProblem("expected an integer", hint: "write a JSON integer such as 0") }
            guard range.contains(i) else { throw ValueProblem("\(i) is out of range for \(type.rawValue) (\(range.lowerBound)…\(range.upperBound))") }
            return .int(i)
        case .double, .float:
            switch v {
            case .int(let i): return .double(Double(i))
            case .double: return v
            case .decimal(let d): return .double(NSDecimalNumber(decimal: d).doubleValue)
            case .string("NaN"): return .double(.nan)
            case .string("Infinity"): return .double(.infinity)
            case .string("-Infinity"): return .double(-.infinity)
            default: throw ValueProblem("expected a number", hint: "write a JSON number, or \"NaN\", \"Infinity\" or \"-Infinity\"")
            }
        case .decimal:
            switch v {
            case .int(let i): return .decimal(Decimal(i))
            case .decimal: return v
            case .double(let d):
                guard d.isFinite, let dec = Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX")) else {
                    throw ValueProblem("expected a finite number")
                }
                return .decimal(dec)
            case .string(let s):
                guard let dec = decimal(s) else { throw ValueProblem("'\(s)' is not a decimal number", hint: "write a number or a numeric string such as \"12.50\"") }
                return .decimal(dec)
            default: throw ValueProblem("expected a number", hint: "write a JSON number or a numeric string such as \"12.50\"")
            }
        case .boolean:
            switch v {
            case .bool: return v
            case .int(0): return .bool(false)
            case .int(1): return .bool(true)
            default: throw ValueProblem("expected true or false")
            }
        case .string:
            guard case .string = v else { throw ValueProblem("expected a string") }
            return v
        case .date:
            switch v {
            case .date: return v
            case .string(let s):
                guard let d = ISO8601.date(from: s) else {
                    throw ValueProblem("'\(s)' is not an ISO-8601 date", hint: "write a date such as \"2024-05-01T12:00:00Z\" or {\"$date\": \"2024-05-01\"}")
                }
                return .date(d)
            default:
                throw ValueProblem("expected a date", hint: "write an ISO-8601 string such as \"2024-05-01T12:00:00Z\" or {\"$date\": \"2024-05-01\"}")
            }
        case .binary:
            guard case .string(let s) = v, let data = Data(base64Encoded: s) else {
                throw ValueProblem("expected base64-encoded data", hint: "write the bytes as a base64 string such as \"AAEC\"")
            }
            return .data(data)
        case .uuid:
            guard case .string(let s) = v, UUID(uuidString: s) != nil else {
                throw ValueProblem("expected a UUID string", hint: "write a UUID such as \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"")
            }
            return v
        case .uri:
            guard case .string(let s) = v, !s.isEmpty, URL(string: s) != nil else {
                throw ValueProblem("expected a URI string", hint: "write a URI such as \"https://example.com\"")
            }
            return v
        }
    }

    /// A whole decimal numeral (Decimal(string:) alone accepts a valid prefix, "12abc" as 12).
    static func decimal(_ s: String) -> Decimal? {
        let t = s.trimmingCharacters(in: .whitespaces)
        let pattern = #"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"#
        guard t.range(of: pattern, options: .regularExpression) != nil else { return nil }
        return Decimal(string: t, locale: Locale(identifier: "en_US_POSIX"))
    }

    static func describe(_ v: PredicateValue) -> String {
        switch v {
        case .string(let s): return "\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\" (a string)"
        case .int(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .bool(let b): return "\(b)"
        default: return v.kindDescription
        }
    }

    /// One JSON object of the file, its path and what it describes, for messages.
    struct Fields {
        let fields: [String: PredicateValue]
        let path: String
        /// "attribute Flight.dep_delay" once the name is known, so every message names its object.
        let subject: String
        private let kind: String

        init(_ value: PredicateValue, path: String, keys: [String], subject: String,
             named: (String) -> String = { $0 }) throws(StoreError) {
            self.path = path
            kind = String(subject.split(separator: " ").first ?? "object")
            if case .dictionary(let d) = value, case .string(let name)? = d["name"], !name.isEmpty {
                self.subject = named(name)
            } else {
                self.subject = subject
            }
            guard case .dictionary(let d) = value else {
                fields = [:]
                throw error(nil, "expected a JSON object, found \(ModelJSONDecoder.describe(value))")
            }
            fields = d
            for key in d.keys.sorted() where !keys.contains(key) {
                throw error(key, "unknown key '\(key)'", hint: ModelFiles.didYouMean(key, keys), atKey: false)
            }
        }

        /// `path.key (subject): problem`, or `path (subject): problem` when the object as a whole is at fault.
        func error(_ key: String?, _ problem: String, hint: String? = nil, atKey: Bool = true) -> StoreError {
            var place = path
            if let key, atKey { place += key.hasPrefix("[") || path.isEmpty ? key : "." + key }
            let at = place.isEmpty ? "\(subject)" : "\(place) (\(subject))"
            return StoreError(.modelFile, "\(at): \(problem)", hint: hint)
        }

        func name() throws(StoreError) -> String {
            guard let name = try string("name") else {
                throw error("name", "has no \"name\"", hint: "every \(kind) needs a non-empty \"name\"", atKey: false)
            }
            guard !name.isEmpty else { throw error("name", "the name is empty") }
            return name
        }

        func string(_ key: String) throws(StoreError) -> String? {
            guard let v = fields[key], !v.isNull else { return nil }
            guard case .string(let s) = v else { throw error(key, "expected a string, found \(ModelJSONDecoder.describe(v))") }
            return s
        }

        func bool(_ key: String) throws(StoreError) -> Bool? {
            guard let v = fields[key], !v.isNull else { return nil }
            guard case .bool(let b) = v else { throw error(key, "expected true or false, found \(ModelJSONDecoder.describe(v))") }
            return b
        }

        func array(_ key: String, required: Bool = false) throws(StoreError) -> [PredicateValue] {
            guard let v = fields[key], !v.isNull else {
                if required { throw error(key, "has no \"\(key)\"", hint: "a model file is one JSON object: {\"entities\": [...], \"templates\": [...]}", atKey: false) }
                return []
            }
            guard case .array(let a) = v else { throw error(key, "expected an array, found \(ModelJSONDecoder.describe(v))") }
            return a
        }

        /// A list of key lists (`indexes`, `uniqueness`).
        func groups(_ key: String) throws(StoreError) -> [[String]] {
            var out: [[String]] = []
            for (i, group) in try array(key).enumerated() {
                guard case .array(let names) = group, !names.isEmpty else {
                    throw error("\(key)[\(i)]", "expected a non-empty array of attribute names, found \(ModelJSONDecoder.describe(group))")
                }
                var keys: [String] = []
                for n in names {
                    guard case .string(let s) = n else {
                        throw error("\(key)[\(i)]", "expected attribute names (strings), found \(ModelJSONDecoder.describe(n))")
                    }
                    keys.append(s)
                }
                out.append(keys)
            }
            return out
        }
    }
}

// MARK: - Encoding

enum ModelJSONEncoder {
    /// The JSON written: objects sort their keys when printed.
    indirect enum Value {
        case null, bool(Bool), int(Int64), number(String), string(String)
        case array([Value])
        case object([String: Value])

        var isScalar: Bool {
            switch self {
            case .array(let a): return a.isEmpty
            case .object(let o): return o.isEmpty
            default: return true
            }
        }
    }

    static func model(_ m: StoreModel) -> Value {
        .object(["entities": .array(m.entities.map(entity)), "templates": .array(m.templates.map(template))])
    }

    static func entity(_ e: ModelEntity) -> Value {
        var o: [String: Value] = [
            "name": .string(e.name),
            "parent": e.parent.map(Value.string) ?? .null,
            "abstract": .bool(e.isAbstract),
            "attributes": .array(e.attributes.map(attribute)),
            "relationships": .array(e.relationships.map(relationship)),
            "indexes": .array(e.indexes.map { .array($0.map(Value.string)) }),
            "uniqueness": .array(e.uniqueness.map { .array($0.map(Value.string)) }),
        ]
        if e.table != e.name { o["table"] = .string(e.table) }
        if e.primaryKey != "Z_PK" { o["primaryKey"] = .string(e.primaryKey) }
        if let old = e.renamingIdentifier { o["renamingIdentifier"] = .string(old) }
        return .object(o)
    }

    static func attribute(_ a: ModelAttribute) -> Value {
        var o: [String: Value] = [
            "name": .string(a.name), "type": .string(a.type.rawValue), "optional": .bool(a.isOptional),
            "indexed": .bool(a.isIndexed), "unique": .bool(a.isUnique),
        ]
        if let d = a.defaultValue, !d.isNull { o["default"] = value(d) }
        if a.column != a.name { o["column"] = .string(a.column) }
        if let old = a.renamingIdentifier { o["renamingIdentifier"] = .string(old) }
        if a.isUntyped { o["untyped"] = .bool(true) }
        return .object(o)
    }

    static func relationship(_ r: ModelRelationship) -> Value {
        var o: [String: Value] = [
            "name": .string(r.name), "destination": .string(r.destination), "toMany": .bool(r.isToMany),
            "inverse": r.inverse.map(Value.string) ?? .null, "deleteRule": .string(r.deleteRule.rawValue),
            "optional": .bool(r.isOptional),
        ]
        if r.foreignKeyColumn != r.name { o["foreignKey"] = .string(r.foreignKeyColumn) }
        if let ref = r.referencedColumn { o["references"] = .string(ref) }
        if let join = r.joinTable { o["joinTable"] = .string(join) }
        if let column = r.joinColumn { o["joinColumn"] = .string(column) }
        if let column = r.inverseJoinColumn { o["inverseJoinColumn"] = .string(column) }
        if let old = r.renamingIdentifier { o["renamingIdentifier"] = .string(old) }
        return .object(o)
    }

    static func template(_ t: FetchTemplate) -> Value {
        var o: [String: Value] = [
            "name": .string(t.name), "entity": .string(t.entity), "predicate": .string(t.predicate),
            "sort": .array(t.sort.map { .string($0.spec) }),
        ]
        if let l = t.limit { o["limit"] = .int(Int64(l)) }
        return .object(o)
    }

    /// Values the reader turns back into the same ones for the attribute's type: decimals as
    /// strings (a JSON number would pass through Double and lose digits), non-finite doubles as
    /// the strings "NaN"/"Infinity"/"-Infinity", dates as {"$date": ISO-8601}, data as base64.
    static func value(_ v: PredicateValue) -> Value {
        switch v {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d):
            if d.isNaN { return .string("NaN") }
            if d.isInfinite { return .string(d > 0 ? "Infinity" : "-Infinity") }
            return .number("\(d)")
        case .decimal(let d): return .string("\(d)")
        case .string(let s): return .string(s)
        case .date(let d): return .object(["$date": .string(ISO8601.string(from: d))])
        case .data(let d): return .string(d.base64EncodedString())
        case .array(let a), .set(let a): return .array(a.map(value))
        case .dictionary(let d): return .object(d.mapValues(value))
        }
    }

    static func write(_ v: Value, indent: String, to out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .number(let n): out += n
        case .string(let s): JSONText.quote(s, to: &out)
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            // Short lists of names (index groups, sort keys) read best on one line.
            if a.allSatisfy(\.isScalar) {
                out += "["
                for (k, e) in a.enumerated() { if k > 0 { out += ", " }; write(e, indent: indent, to: &out) }
                out += "]"
                return
            }
            let inner = indent + "  "
            out += "[\n"
            for (k, e) in a.enumerated() {
                out += inner
                write(e, indent: inner, to: &out)
                out += k == a.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let o):
            if o.isEmpty { out += "{}"; return }
            let inner = indent + "  "
            out += "{\n"
            let keys = o.keys.sorted()
            for (k, key) in keys.enumerated() {
                out += inner
                JSONText.quote(key, to: &out)
                out += ": "
                write(o[key] ?? .null, indent: inner, to: &out)
                out += k == keys.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        }
    }
}
