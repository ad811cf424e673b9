import Foundation
import PQL

extension StoreModel {
    /// Reads a Core Data model as Xcode saves it: a `.xcdatamodeld` bundle (its current version,
    /// named by `.xccurrentversion`, else the newest `.xcdatamodel` inside), one `.xcdatamodel`
    /// directory, or the `contents` XML file itself.
    ///
    /// Entities, inheritance, attributes (types, optionality, defaults, `indexed`), relationships
    /// (to-one, to-many, and many-to-many where both sides are `toMany="YES"`, which gets a join
    /// table named as ``ModelRelationship/joinTable`` says; inverses, delete rules), uniqueness constraints, fetch indexes and
    /// fetch request templates are read, and `renamingIdentifier` (the previous name of a renamed entity,
    /// attribute or relationship, used when a store migrates); transient properties and fetched properties are skipped,
    /// as they have no column, and ordered to-many relationships are read as unordered. Transformable, Object ID and Composite attributes have no SQL form
    /// and are a ``StoreError/Kind/modelFile`` error. Error messages give the line in `contents`.
    ///
    /// ```swift
    /// let model = try StoreModel(xcdatamodel: URL(fileURLWithPath: "App/Model.xcdatamodeld"))
    /// let store = try PredicateStore(path: "app.sqlite", model: model)
    /// ```
    public init(xcdatamodel url: URL) throws(StoreError) {
        let contents = try XcodeModelReader.contentsFile(url)
        let data = try ModelFiles.read(contents)
        let name = contents.deletingLastPathComponent().lastPathComponent
        let file = contents.lastPathComponent == "contents" && !name.isEmpty ? "\(name)/contents" : contents.lastPathComponent
        self = try XcodeModelReader(file: file).model(Array(data))
    }
}

struct XcodeModelReader {
    /// How messages name the file: `Model.xcdatamodel/contents`.
    let file: String

    // MARK: Finding the contents file

    static func contentsFile(_ url: URL) throws(StoreError) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StoreError(.modelFile, "Xcode model '\(url.path)' does not exist")
        }
        guard isDirectory.boolValue else { return url }
        switch url.pathExtension.lowercased() {
        case "xcdatamodeld": return try contentsFile(try currentVersion(url))
        case "xcdatamodel":
            let contents = url.appendingPathComponent("contents")
            guard FileManager.default.fileExists(atPath: contents.path) else {
                throw StoreError(.modelFile, "'\(url.lastPathComponent)' has no 'contents' file",
                                 hint: "models saved before Xcode 4 keep a binary 'elements' file; open the model in a current Xcode and save it")
            }
            return contents
        default:
            throw StoreError(.modelFile, "'\(url.path)' is a directory but not an Xcode model",
                             hint: "name a .xcdatamodeld or .xcdatamodel directory, or the 'contents' file inside one")
        }
    }

    /// The version `.xccurrentversion` names, else the only or newest `.xcdatamodel`.
    static func currentVersion(_ bundle: URL) throws(StoreError) -> URL {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? [])
            .filter { $0.lowercased().hasSuffix(".xcdatamodel") }
        let marker = bundle.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: marker.path) {
            let current = try currentVersionName(marker)
            guard names.contains(current) else {
                throw StoreError(.modelFile, "\(bundle.lastPathComponent)/.xccurrentversion names version '\(current)', which the bundle lacks",
                                 hint: names.isEmpty ? "the bundle holds no .xcdatamodel" : "versions present: \(names.sorted().joined(separator: ", "))")
            }
            return bundle.appendingPathComponent(current)
        }
        // Xcode names versions "Model", "Model 2", "Model 3", …: numeric order without the extension.
        let ordered = names.sorted {
            let a = String($0.dropLast(".xcdatamodel".count)), b = String($1.dropLast(".xcdatamodel".count))
            return a.compare(b, options: [.numeric, .caseInsensitive]) == .orderedAscending
        }
        guard let newest = ordered.last else {
            throw StoreError(.modelFile, "'\(bundle.lastPathComponent)' holds no .xcdatamodel version",
                             hint: "a .xcdatamodeld bundle contains one directory per model version, such as Model.xcdatamodel")
        }
        return bundle.appendingPathComponent(newest)
    }

    /// `_XCCurrentVersionName` from the property list.
    static func currentVersionName(_ marker: URL) throws(StoreError) -> String {
        let place = "\(marker.deletingLastPathComponent().lastPathComponent)/.xccurrentversion"
        let bytes = Array(try ModelFiles.read(marker))
        let root: ModelXMLElement
        do throws(ModelXMLError) { root = try ModelXMLReader.parse(bytes) } catch {
            throw StoreError(.modelFile, "\(place), line \(error.line): \(error.message)")
        }
        if root.name == "plist", let dict = root.children(named: "dict").first {
            let items = dict.children
            for (k, item) in items.enumerated() where item.name == "key" && item.text == "_XCCurrentVersionName" {
                if k + 1 < items.count, items[k + 1].name == "string" {
                    let name = items[k + 1].text.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !name.isEmpty { return name }
                }
            }
        }
        throw StoreError(.modelFile, "\(place) does not name the current version",
                         hint: "expected a property list with the key _XCCurrentVersionName and a string such as Model.xcdatamodel")
    }

    // MARK: Reading contents

    func error(_ line: Int, _ message: String, hint: String? = nil) -> StoreError {
        StoreError(.modelFile, "\(file), line \(line): \(message)", hint: hint)
    }

    func model(_ bytes: [UInt8]) throws(StoreError) -> StoreModel {
        let root: ModelXMLElement
        do throws(ModelXMLError) { root = try ModelXMLReader.parse(bytes) } catch {
            throw self.error(error.line, error.message, hint: "the file is not well-formed XML; Xcode writes it, so it may have been edited by hand or truncated")
        }
        guard root.name == "model" else {
            throw self.error(root.line, "expected a Core Data model (a <model> root element), found <\(root.name)>")
        }
        var locations = ModelLocations()
        var entities: [ModelEntity] = []
        var templates: [FetchTemplate] = []
        for child in root.children {
            switch child.name {
            case "entity":
                do throws(StoreError) { entities.append(try entity(child, &locations)) } catch {
                    throw error.about(entity: child["name"])
                }
            case "fetchRequest":
                let t: FetchTemplate
                do throws(StoreError) { t = try template(child) } catch { throw error.about(template: child["name"]) }
                locations.templates[t.name] = "\(file), line \(child.line)"
                templates.append(t)
            default: break   // configurations, the diagram's <elements>, userInfo: nothing to store
            }
        }
        do throws(StoreError) { return try StoreModel(entities, templates: templates) } catch { throw locations.annotate(error) }
    }

    private func required(_ element: ModelXMLElement, _ attribute: String, _ what: String) throws(StoreError) -> String {
        guard let v = element[attribute], !v.isEmpty else {
            throw error(element.line, "\(what) has no \(attribute)=\"…\"")
        }
        return v
    }

    /// Xcode's YES/NO flags; absent means NO.
    private func flag(_ element: ModelXMLElement, _ attribute: String) throws(StoreError) -> Bool {
        guard let v = element[attribute] else { return false }
        switch v.uppercased() {
        case "YES": return true
        case "NO": return false
        default: throw error(element.line, "\(attribute)=\"\(v)\" in <\(element.name)> must be YES or NO")
        }
    }

    private func entity(_ x: ModelXMLElement, _ locations: inout ModelLocations) throws(StoreError) -> ModelEntity {
        let name = try required(x, "name", "<entity>")
        locations.entities[name] = "\(file), line \(x.line)"
        var e = ModelEntity(name, parent: x["parentEntity"].flatMap { $0.isEmpty ? nil : $0 }, isAbstract: try flag(x, "isAbstract"))
        e.renamingIdentifier = x["renamingIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        for child in x.children {
            switch child.name {
            case "attribute":
                let attribute: ModelAttribute?
                do throws(StoreError) { attribute = try self.attribute(child, entity: name) } catch {
                    throw error.about(entity: name, property: child["name"])
                }
                if let a = attribute {
                    locations.properties["\(name).\(a.name)"] = "\(file), line \(child.line)"
                    e.attributes.append(a)
                }
            case "relationship":
                let relationship: ModelRelationship?
                do throws(StoreError) { relationship = try self.relationship(child, entity: name) } catch {
                    throw error.about(entity: name, property: child["name"])
                }
                if let r = relationship {
                    locations.properties["\(name).\(r.name)"] = "\(file), line \(child.line)"
                    e.relationships.append(r)
                }
            case "uniquenessConstraints":
                for c in child.children(named: "uniquenessConstraint") {
                    let group = try keys(c, element: "constraint", attribute: "value")
                    if !group.isEmpty { e.uniqueness.append(group) }
                }
            case "fetchIndex":
                if let group = try fetchIndex(child, entity: name) { e.indexes.append(group) }
            case "compoundIndexes":   // the pre-Xcode 9 spelling of composite indexes
                for c in child.children(named: "compoundIndex") {
                    let group = try keys(c, element: "index", attribute: "value")
                    if !group.isEmpty { e.indexes.append(group) }
                }
            default: break   // fetchedProperty (no column), userInfo
            }
        }
        return e
    }

    private func keys(_ x: ModelXMLElement, element: String, attribute: String) throws(StoreError) -> [String] {
        var out: [String] = []
        for c in x.children(named: element) { out.append(try required(c, attribute, "<\(element)>")) }
        return out
    }

    private func fetchIndex(_ x: ModelXMLElement, entity: String) throws(StoreError) -> [String]? {
        var group: [String] = []
        for c in x.children(named: "fetchIndexElement") {
            guard let property = c["property"], !property.isEmpty else {
                if c["expression"] != nil {
                    throw error(c.line, "fetch index '\(x["name"] ?? "")' of entity '\(entity)' indexes an expression, which is not supported",
                                hint: "index attributes only, or remove the fetch index element")
                }
                throw error(c.line, "<fetchIndexElement> has no property=\"…\"")
            }
            // RTree indexes need an SQLite virtual table; an ordinary index serves the same
            // comparisons, so both kinds become one. The order is moot: SQLite scans both ways.
            if let type = c["type"], type != "Binary", type != "RTree" {
                throw error(c.line, "fetch index element type '\(type)' on \(entity).\(property) is unknown", hint: "expected Binary or RTree")
            }
            group.append(property)
        }
        return group.isEmpty ? nil : group
    }

    static let unsupportedTypes: [String: String] = [
        "Transformable": "store the value as Binary (archive it yourself) or as a String, or mark the attribute transient",
        "ObjectID": "Object ID attributes have no column; remove the attribute or mark it transient",
        "Composite": "flatten the composite's elements into attributes of the entity",
        "Undefined": "choose a type in Xcode's Data Model inspector (Undefined is only allowed for transient attributes)",
    ]

    private func attribute(_ x: ModelXMLElement, entity: String) throws(StoreError) -> ModelAttribute? {
        let name = try required(x, "name", "an <attribute> of entity '\(entity)'")
        // Transient attributes live only in memory; there is nothing to store or query.
        if try flag(x, "transient") { return nil }
        guard let typeName = x["attributeType"], !typeName.isEmpty else {
            throw error(x.line, "attribute \(entity).\(name) has no attributeType=\"…\"",
                        hint: "expected one of: \(AttributeType.allCases.map(\.xcodeName).joined(separator: ", "))")
        }
        if let hint = Self.unsupportedTypes[typeName] {
            throw error(x.line, "attribute \(entity).\(name) is \(typeName), which PQLStore does not support", hint: hint)
        }
        guard let type = AttributeType.allCases.first(where: { $0.xcodeName == typeName }) else {
            throw error(x.line, "attribute \(entity).\(name) has an unknown attributeType '\(typeName)'",
                        hint: ModelFiles.didYouMean(typeName, AttributeType.allCases.map(\.xcodeName)))
        }
        var a = ModelAttribute(name, type, isOptional: try flag(x, "optional"), isIndexed: try flag(x, "indexed"))
        a.renamingIdentifier = x["renamingIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        if let interval = x["defaultDateTimeInterval"] {
            guard type == .date, let seconds = Double(interval), seconds.isFinite else {
                throw error(x.line, "defaultDateTimeInterval=\"\(interval)\" of \(entity).\(name) is not a date",
                            hint: "expected seconds since 2001-01-01 on a Date attribute")
            }
            a.defaultValue = .date(Date(timeIntervalSinceReferenceDate: seconds))
        } else if let text = x["defaultValueString"] {
            do throws(ModelJSONDecoder.ValueProblem) { a.defaultValue = try Self.defaultValue(text, type) } catch {
                throw self.error(x.line, "defaultValueString=\"\(text)\" of \(entity).\(name) is not \(error.message)", hint: error.hint)
            }
        }
        return a
    }

    /// Xcode's `defaultValueString` as a value of the attribute's type.
    static func defaultValue(_ text: String, _ type: AttributeType) throws(ModelJSONDecoder.ValueProblem) -> PredicateValue? {
        typealias Problem = ModelJSONDecoder.ValueProblem
        let t = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16, .integer32, .integer64:
            guard let i = Int64(t) else { throw Problem("an integer") }
            let fits = type == .integer16 ? Int16(exactly: i) != nil : type == .integer32 ? Int32(exactly: i) != nil : true
            guard fits else { throw Problem("within the range of \(type.xcodeName)") }
            return .int(i)
        case .double, .float:
            guard let d = Double(t) else { throw Problem("a number") }
            return .double(d)
        case .decimal:
            guard let d = ModelJSONDecoder.decimal(t) else { throw Problem("a decimal number") }
            return .decimal(d)
        case .boolean:
            switch t.uppercased() {
            case "YES", "TRUE", "1": return .bool(true)
            case "NO", "FALSE", "0": return .bool(false)
            default: throw Problem("a boolean", hint: "expected YES or NO")
            }
        case .string: return .string(text)
        case .date:
            // Xcode writes dates as seconds since 2001 (newer versions in defaultDateTimeInterval).
            guard let seconds = Double(t), seconds.isFinite else { throw Problem("a date", hint: "expected seconds since 2001-01-01") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid:
            guard UUID(uuidString: t) != nil else { throw Problem("a UUID") }
            return .string(t)
        case .uri:
            guard !t.isEmpty, URL(string: t) != nil else { throw Problem("a URI") }
            return .string(t)
        case .binary:
            throw Problem("allowed: Binary attributes have no default value in a Core Data model")
        }
    }

    static let deletionRules: [String: ModelRelationship.DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]

    private func relationship(_ x: ModelXMLElement, entity: String) throws(StoreError) -> ModelRelationship? {
        let name = try required(x, "name", "a <relationship> of entity '\(entity)'")
        if try flag(x, "transient") { return nil }
        guard let destination = x["destinationEntity"], !destination.isEmpty else {
            throw error(x.line, "relationship \(entity).\(name) has no destinationEntity=\"…\"",
                        hint: "choose its destination entity in Xcode's Data Model inspector")
        }
        if let inverseEntity = x["inverseEntity"], inverseEntity != destination {
            throw error(x.line, "relationship \(entity).\(name) leads to '\(destination)' but names its inverse on '\(inverseEntity)'",
                        hint: "the inverse must be a relationship of the destination entity")
        }
        var rule = ModelRelationship.DeleteRule.nullify
        if let text = x["deletionRule"] {
            guard let r = Self.deletionRules[text] else {
                throw error(x.line, "relationship \(entity).\(name) has an unknown deletionRule '\(text)'",
                            hint: ModelFiles.didYouMean(text, Self.deletionRules.keys.sorted()))
            }
            rule = r
        }
        let inverse = x["inverseName"].flatMap { $0.isEmpty ? nil : $0 }
        var r = ModelRelationship(name, to: destination, inverse: inverse, deleteRule: rule, isOptional: try flag(x, "optional"))
        r.isToMany = try flag(x, "toMany")
        r.renamingIdentifier = x["renamingIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        return r
    }

    private func template(_ x: ModelXMLElement) throws(StoreError) -> FetchTemplate {
        let name = try required(x, "name", "<fetchRequest>")
        let entity = try required(x, "entity", "fetch request '\(name)'")
        // No predicate fetches every object, as Core Data's template without one does.
        let predicate = x["predicateString"].flatMap { $0.isEmpty ? nil : $0 } ?? "TRUEPREDICATE"
        if let problem = ModelFiles.checkPredicate(predicate) {
            throw error(x.line, "the predicate of fetch request '\(name)' does not parse: \(problem)")
        }
        var limit: Int?
        if let text = x["fetchLimit"] {
            guard let n = Int(text), n >= 0 else {
                throw error(x.line, "fetchLimit=\"\(text)\" of fetch request '\(name)' is not a non-negative integer")
            }
            limit = n == 0 ? nil : n   // Core Data's 0 means no limit
        }
        return FetchTemplate(name: name, entity: entity, predicate: predicate, limit: limit)
    }
}
