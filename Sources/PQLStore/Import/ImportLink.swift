import PQL

/// A column of an imported file that names related objects: each value finds one object of
/// `destination` by its attribute `key`, and the column becomes a to-one relationship to it.
///
/// `flights.csv`'s `carrier` column holds airline codes; linked by `Airline.carrier`, each
/// flight gets a to-one `carrier` to its airline, so `carrier.name BEGINSWITH 'United'` reaches
/// the airline's name. The relationship keeps the code (its foreign key refers to
/// `Airline.carrier`, as Core Data's inferred models and the demo do), so nothing is looked up
/// again when it is read.
///
/// Every value must name exactly one object, found when the import begins: a value no object
/// has, or one that several have, is an error naming the row and the value, and nothing is
/// written. An empty value (NULL) is no link.
///
/// The inverse, a to-many on the destination, is named ``inverse`` when given; otherwise after
/// the importing entity, its first letter lowercased and an `s` added (`Flight` → `flights`),
/// and when the destination already has a property of that name, with the relationship's name
/// after an underscore (`flights_carrier`).
///
/// ```swift
/// let link = ImportLink("carrier", to: "Airline", by: "carrier")
/// try store.importFile(flights, into: "Flight", links: [link])
/// ```
public struct ImportLink: Sendable, Hashable, CustomStringConvertible {
    /// The file's column holding the values.
    public var column: String
    /// The to-one relationship the column becomes (the column's name unless given).
    public var relationship: String
    /// The entity the values name objects of.
    public var destination: String
    /// The destination's attribute whose values the column holds.
    public var key: String
    /// The inverse to-many's name on the destination; nil names it as the type's documentation says.
    public var inverse: String?

    /// A link from `column` to the `destination` object whose `key` attribute holds the value.
    ///
    /// ```swift
    /// let origin = ImportLink("origin", to: "Airport", by: "faa", relationship: "originAirport", inverse: "departures")
    /// ```
    public init(_ column: String, to destination: String, by key: String, relationship: String? = nil, inverse: String? = nil) {
        self.column = column
        self.relationship = relationship ?? column
        self.destination = destination
        self.key = key
        self.inverse = inverse
    }

    /// Reads the command line's form, `COLUMN=Entity.key`, optionally followed by `:inverse`.
    ///
    /// ```swift
    /// let link = try ImportLink(parsing: "carrier=Airline.carrier:flights")
    /// ```
    public init(parsing text: String) throws(StoreError) {
        let hint = "write COLUMN=ENTITY.KEY (and :INVERSE to name the inverse), as carrier=Airline.carrier"
        guard let equals = text.firstIndex(of: "=") else {
            throw StoreError(.invalidValue, "the link '\(text)' has no '='", hint: hint)
        }
        let column = String(text[..<equals])
        var rest = String(text[text.index(after: equals)...])
        var inverse: String? = nil
        if let colon = rest.firstIndex(of: ":") {
            inverse = String(rest[rest.index(after: colon)...])
            rest = String(rest[..<colon])
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !column.isEmpty, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, inverse.map({ !$0.isEmpty }) ?? true else {
            throw StoreError(.invalidValue, "cannot read the link '\(text)'", hint: hint)
        }
        self.init(column, to: parts[0], by: parts[1], inverse: inverse)
    }

    /// The command line's form.
    public var description: String {
        "\(column)=\(destination).\(key)" + (inverse.map { ":\($0)" } ?? "")
    }
}

extension StoreModel {
    /// The model with `links` as to-one relationships of `entity` (which must exist), each with
    /// its inverse on the destination. A link whose relationship the entity already has (the
    /// same destination, keyed by the same attribute) is kept as it is.
    package func addingImportLinks(_ links: [ImportLink], to entity: String, names: NameRules) throws(StoreError) -> StoreModel {
        guard !links.isEmpty else { return self }
        var entities = self.entities
        func position(_ name: String) -> Int? { entities.firstIndex { $0.name == name } }
        var seen: Set<String> = []
        for link in links {
            guard seen.insert(link.relationship).inserted else {
                throw StoreError(.importFailed, "two links make the relationship \(entity).\(link.relationship)",
                                 hint: "link each column once")
            }
            guard let source = position(entity) else { throw StoreError(.unknownEntity, "no entity named '\(entity)'") }
            let dest = try self.entity(named: link.destination)
            let keyAttribute = try Self.linkKey(link, of: dest, in: self)
            let sourceEntity = entities[source]
            if let r = allRelationships(sourceEntity).first(where: { $0.name == link.relationship }) {
                guard !r.isToMany, r.destination == dest.name, (r.referencedColumn ?? root(dest).primaryKey) == keyAttribute.column else {
                    throw StoreError(.importFailed, "\(entity).\(r.name) is already a relationship \(r.isToMany ? "to many " : "to ")\(r.destination)\(r.referencedColumn.map { " by \($0)" } ?? ""), not the link \(link)",
                                     hint: "link the column under another name: ImportLink(…, relationship: \"…\"), or import into a new entity")
                }
                continue
            }
            if let a = allAttributes(sourceEntity).first(where: { $0.name == link.relationship || SQLName.same($0.column, link.column) }) {
                throw StoreError(.importFailed, "\(entity).\(a.name) is an attribute; the link \(link) would store its objects in the same column",
                                 hint: "import into a new entity, or declare the relationship \(link.relationship) in the model in place of the attribute")
            }
            let destination = entities[position(dest.name)!]
            let inverse = link.inverse ?? Self.defaultInverse(of: link, from: entity, on: destination, in: self)
            if allAttributes(destination).contains(where: { $0.name == inverse }) || allRelationships(destination).contains(where: { $0.name == inverse }) {
                throw StoreError(.importFailed, "\(dest.name) already has a property named '\(inverse)', which the link \(link) would make its inverse",
                                 hint: "name the inverse otherwise: \(link.column)=\(link.destination).\(link.key):OTHER")
            }
            entities[source].relationships.append(ModelRelationship(link.relationship, to: dest.name, inverse: inverse,
                                                                     foreignKeyColumn: link.column, referencedColumn: keyAttribute.column))
            // The key names one object: unique, which also indexes it for the joins that read
            // through the link (and PostgreSQL's foreign key requires).
            if !keyAttribute.isUnique && keyAttribute.column != root(dest).primaryKey {
                var owner: ModelEntity? = dest
                while let o = owner, !o.attributes.contains(where: { $0.name == keyAttribute.name }) { owner = o.parent.flatMap { p in entities.first { $0.name == p } } }
                if let o = owner, let i = position(o.name), let j = entities[i].attributes.firstIndex(where: { $0.name == keyAttribute.name }) {
                    entities[i].attributes[j].isUnique = true
                }
            }
            entities[position(dest.name)!].relationships.append(ModelRelationship(inverse, toMany: entity, inverse: link.relationship))
        }
        return try StoreModel(entities, templates: templates, names: names)
    }

    /// The destination's attribute a link finds objects by.
    package static func linkKey(_ link: ImportLink, of dest: ModelEntity, in model: StoreModel) throws(StoreError) -> ModelAttribute {
        let attributes = model.allAttributes(dest)
        guard let a = attributes.first(where: { $0.name == link.key }) else {
            let near = SharedSemantics.nearestNames(to: link.key, in: attributes.map(\.name))
            throw StoreError(.importFailed, "the link \(link) finds \(dest.name) objects by '\(link.key)', which \(dest.name) does not have",
                             hint: near.isEmpty ? "\(dest.name)'s attributes are: \(attributes.map(\.name).joined(separator: ", "))"
                                                : "did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?")
        }
        guard a.type != .binary else {
            throw StoreError(.importFailed, "the link \(link) finds objects by \(dest.name).\(a.name), a binary attribute", hint: "link by a string or integer attribute")
        }
        return a
    }

    /// `flights` for a link from Flight; `flights_carrier` when the destination has a `flights`.
    static func defaultInverse(of link: ImportLink, from entity: String, on destination: ModelEntity, in model: StoreModel) -> String {
        let plural = entity.prefix(1).lowercased() + entity.dropFirst() + "s"
        let taken = model.allAttributes(destination).map(\.name) + model.allRelationships(destination).map(\.name)
        return taken.contains(plural) ? plural + "_" + link.relationship : plural
    }
}

/// Finds, for each row of an import, the objects its link columns name: the destinations'
/// keys are read once, when the import begins, and every value is checked against them.
package struct ImportLinkResolver: Sendable {
    struct Column: Sendable {
        let index: Int
        let link: ImportLink
        let entity: String
        let attribute: ModelAttribute
        /// The key values of the destination's objects (each held by one: more is refused).
        let objects: Set<SQLValue>
    }
    let columns: [Column]

    /// The links' destination entities and key attributes, in the links' order, for the caller
    /// to read the key values of every object of each (``init(links:model:columnNames:values:)``).
    package static func destinations(_ links: [ImportLink], in model: StoreModel) throws(StoreError) -> [(ModelEntity, ModelAttribute)] {
        var out: [(ModelEntity, ModelAttribute)] = []
        for link in links {
            let dest = try model.entity(named: link.destination)
            out.append((dest, try StoreModel.linkKey(link, of: dest, in: model)))
        }
        return out
    }

    /// `values` holds, for each link in order, the key values of every object of its destination.
    /// A key value several objects hold is an error: the link could not tell them apart.
    package init(links: [ImportLink], model: StoreModel, columnNames: [String], values: [[PredicateValue]]) throws(StoreError) {
        var columns: [Column] = []
        for (n, link) in links.enumerated() {
            guard let index = columnNames.firstIndex(of: link.column) else {
                let near = SharedSemantics.nearestNames(to: link.column, in: columnNames)
                throw StoreError(.importFailed, "the link \(link) names the column '\(link.column)', which the file does not have",
                                 hint: near.isEmpty ? "the file's columns are: \(columnNames.prefix(20).joined(separator: ", "))"
                                                    : "did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?")
            }
            let dest = try model.entity(named: link.destination)
            let attribute = try StoreModel.linkKey(link, of: dest, in: model)
            var objects: Set<SQLValue> = []
            for v in values[n] where !v.isNull {
                guard objects.insert(try RecordCodec.sqlValue(v, for: attribute, entity: dest.name)).inserted else {
                    throw StoreError(.importFailed, "the link \(link) finds \(dest.name) objects by \(link.key), and \(Self.shown(v)) names more than one",
                                     hint: "link by an attribute that names one object, or remove the duplicates from \(dest.name); nothing was imported")
                }
            }
            columns.append(Column(index: index, link: link, entity: dest.name, attribute: attribute, objects: objects))
        }
        self.columns = columns
    }

    package var isEmpty: Bool { columns.isEmpty }

    /// The type a link column is read as: its key attribute's.
    package func keyType(ofColumn name: String) -> AttributeType? {
        columns.first { $0.link.column == name }?.attribute.type
    }

    /// The file's column names as an insert names them: each link column as its relationship.
    package func planColumns(_ names: [String]) -> [String] {
        var out = names
        for c in columns { out[c.index] = c.link.relationship }
        return out
    }

    /// Checks the row's link values: each must name exactly one object. (The caller's error
    /// names the row: the file's line, or the table's row.)
    package func check(_ row: [PredicateValue]) throws(StoreError) {
        for c in columns where c.index < row.count {
            let v = row[c.index]
            if v.isNull { continue }
            let key: SQLValue
            do throws(StoreError) { key = try RecordCodec.sqlValue(v, for: c.attribute, entity: c.entity) } catch {
                throw StoreError(.importFailed, "\(c.link.column) \(Self.shown(v)) cannot name a \(c.entity): \(error.message)",
                                 hint: "correct the value in the file; nothing was imported")
            }
            guard !c.objects.contains(key) else { continue }
            throw StoreError(.importFailed, "\(c.link.column) \(Self.shown(v)) finds no \(c.entity) (by \(c.entity).\(c.attribute.name))",
                             hint: "import that \(c.entity) first, or correct the value in the file; nothing was imported")
        }
    }

    private static func shown(_ v: PredicateValue) -> String {
        if case .string(let s) = v { return "'\(s)'" }
        return "\(v)"
    }
}
