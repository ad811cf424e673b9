import Foundation
import PQL
import PQLStore

/// Issue 27's differential suite: objects and many-to-many links give the same rows in memory,
/// in SQLite and in PostgreSQL. Folders hold notes (a to-one), notes and tags link through a
/// many-to-many. In memory each object is a dictionary tagged with `$entity` and `$key` (as a
/// fetched record's value is), its to-one the linked object and its to-many the array of them.
/// Predicates take objects as their arguments in every form a caller has: a key, an
/// ``ObjectID``, a record, nil, and keys no object has.
package struct ObjectWorld {
    package static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Folder", attributes: [ModelAttribute("name", .string)],
                            relationships: [ModelRelationship("notes", toMany: "Note", inverse: "folder")]),
                ModelEntity("Note", attributes: [ModelAttribute("title", .string), ModelAttribute("rank", .integer64)],
                            relationships: [ModelRelationship("folder", to: "Folder", inverse: "notes"),
                                            ModelRelationship("tags", toMany: "Tag", inverse: "notes")]),
                ModelEntity("Tag", attributes: [ModelAttribute("name", .string), ModelAttribute("weight", .integer64)],
                            relationships: [ModelRelationship("notes", toMany: "Note", inverse: "tags")]),
            ], names: .postgreSQL)
        } catch {
            fatalError("the object test model is invalid: \(error)")
        }
    }()

    static let folderNames = ["Work", "Home", "work", "Archive", ""]
    static let titles = ["a", "b", "c", "Alpha", "beta", "", "x*y", "é"]
    static let tagNames = ["urgent", "later", "Urgent", "idle", "", "ß"]

    /// Rows to insert, in order; keys are 1, 2, 3… in each entity, as both stores assign them.
    package var folders: [[String: PredicateValue]] = []
    package var tags: [[String: PredicateValue]] = []
    package var notes: [[String: PredicateValue]] = []
    /// The same objects in memory, keyed 1…n.
    package var memoryNotes: [PredicateValue] = []
    package var memoryTags: [PredicateValue] = []

    package init(seed: UInt64, folders folderCount: Int = 5, tags tagCount: Int = 8, notes noteCount: Int = 60) {
        var rng = SeededSplitMix64(seed: seed)
        var folderObjects: [[String: PredicateValue]] = []
        for i in 0..<folderCount {
            let row: [String: PredicateValue] = ["name": .string(rng.pick(Self.folderNames))]
            folders.append(row)
            folderObjects.append(row.merging(Self.identity("Folder", i + 1)) { a, _ in a })
        }
        var tagObjects: [[String: PredicateValue]] = []
        for i in 0..<tagCount {
            var row: [String: PredicateValue] = ["name": .string(rng.pick(Self.tagNames))]
            row["weight"] = rng.chance(0.8) ? .int(Int64(rng.int(in: -2...9))) : .null
            tags.append(row)
            tagObjects.append(row.merging(Self.identity("Tag", i + 1)) { a, _ in a })
        }
        var noteObjects: [[String: PredicateValue]] = []
        var linksOfTag = Array(repeating: [Int](), count: tagCount)
        for i in 0..<noteCount {
            let folder: Int? = rng.chance(0.8) ? rng.int(in: 0...(folderCount - 1)) : nil
            var linked: [Int] = []
            if !rng.chance(0.3) {
                for t in 0..<tagCount where rng.chance(0.25) { linked.append(t) }
            }
            var row: [String: PredicateValue] = ["title": .string(rng.pick(Self.titles))]
            row["rank"] = rng.chance(0.85) ? .int(Int64(rng.int(in: 0...5))) : .null
            var object = row.merging(Self.identity("Note", i + 1)) { a, _ in a }
            row["folder"] = folder.map { .int(Int64($0 + 1)) } ?? .null
            row["tags"] = .array(linked.map { .int(Int64($0 + 1)) })
            notes.append(row)
            object["folder"] = folder.map { .dictionary(folderObjects[$0]) } ?? .null
            object["tags"] = .array(linked.map { .dictionary(tagObjects[$0]) })
            noteObjects.append(object)
            for t in linked { linksOfTag[t].append(i) }
        }
        memoryNotes = noteObjects.map { .dictionary($0) }
        // A tag's notes as the notes' attributes and folder, without their tags (no cycle).
        memoryTags = tagObjects.enumerated().map { t, tag in
            var o = tag
            o["notes"] = .array(linksOfTag[t].map { n in .dictionary(noteObjects[n].filter { $0.key != "tags" }) })
            return .dictionary(o)
        }
    }

    static func identity(_ entity: String, _ key: Int) -> [String: PredicateValue] {
        [ObjectID.entityMember: .string(entity), ObjectID.keyMember: .int(Int64(key))]
    }

    /// The keys `predicate` selects in memory among `objects` (keyed 1…n), or the evaluator's error.
    package static func memory(_ predicate: PredicateNode, _ objects: [PredicateValue]) -> Result<[Int64], PredicateEvaluationError> {
        do {
            let compiled = try predicate.compiled(for: PredicateValue.self)
            var out: [Int64] = []
            for (i, o) in objects.enumerated() where try compiled.evaluate(o) { out.append(Int64(i + 1)) }
            return .success(out)
        } catch {
            return .failure(error)
        }
    }
}

/// One generated case: the entity it filters, its format string and its arguments.
package struct ObjectCase: CustomStringConvertible {
    package var entity: String
    package var format: String
    package var arguments: [PredicateValue]

    package var description: String { "\(entity): \(format) with \(arguments.map { ExpressionNode.constant($0).description })" }

    package func predicate() throws -> PredicateNode { try PredicateNode(format: format, argumentArray: arguments) }
}

/// Random predicates over ``ObjectWorld``: objects compared with ==, !=, IN and CONTAINS in
/// every form (to-one, SELF, many-to-many, SUBQUERY variable, both directions), the
/// collection operators over the many-to-many, key paths through it, and these combined.
package struct ObjectCaseGenerator {
    var rng: SeededSplitMix64
    let world: ObjectWorld

    package init(seed: UInt64, world: ObjectWorld) {
        rng = SeededSplitMix64(seed: seed)
        self.world = world
    }

    /// An argument standing for an object of `entity` (keys 1…count): its key, its ID, a
    /// record-like dictionary, or now and then a key no object has or nil.
    mutating func object(_ entity: String, count: Int, nilAllowed: Bool = true) -> PredicateValue {
        let key = Int64(rng.chance(0.1) ? count + rng.int(in: 1...3) : rng.int(in: 1...count))
        switch rng.int(in: 0...9) {
        case 0...3: return .int(key)
        case 4...7: return ObjectID(entity, key: key).predicateValue
        case 8: return .dictionary([ObjectID.entityMember: .string(entity), ObjectID.keyMember: .int(key), "name": "record"])
        default: return nilAllowed ? .null : .int(key)
        }
    }

    mutating func objects(_ entity: String, count: Int) -> PredicateValue {
        .array((0..<rng.int(in: 0...3)).map { _ in object(entity, count: count, nilAllowed: false) })
    }

    mutating func folder() -> PredicateValue { object("Folder", count: world.folders.count) }
    mutating func tag(nilAllowed: Bool = true) -> PredicateValue { object("Tag", count: world.tags.count, nilAllowed: nilAllowed) }
    mutating func note() -> PredicateValue { object("Note", count: world.notes.count) }

    mutating func comparison() -> String { rng.pick(["==", "!=", "<", "<=", ">", ">="]) }

    /// One leaf on Note: its text and its arguments.
    mutating func noteLeaf() -> (String, [PredicateValue]) {
        let small = rng.int(in: -1...4)
        switch rng.int(in: 0...21) {
        case 0: return ("folder == %@", [folder()])
        case 1: return ("folder != %@", [folder()])
        case 2: return ("folder IN %@", [objects("Folder", count: world.folders.count)])
        case 3: return ("%@ == folder", [folder()])
        case 4: return ("SELF == %@", [note()])
        case 5: return ("SELF IN %@", [objects("Note", count: world.notes.count)])
        case 6: return ("SELF != %@", [note()])
        case 7: return ("ANY tags == %@", [tag()])
        case 8: return ("ALL tags != %@", [tag()])
        case 9: return ("NONE tags == %@", [tag()])
        case 10: return ("tags CONTAINS %@", [tag()])
        case 11: return ("%@ IN tags", [tag()])
        case 12: return ("ANY tags IN %@", [objects("Tag", count: world.tags.count)])
        case 13: return ("tags.@count \(comparison()) \(small)", [])
        case 14:
            let op = rng.pick(["@sum", "@max", "@min", "@avg"])
            return ("tags.\(op).weight \(comparison()) \(rng.int(in: -2...9))", [])
        case 15: return ("ANY tags.name ==\(rng.pick(["", "[c]"])) %@", [.string(rng.pick(ObjectWorld.tagNames))])
        case 16: return ("\(rng.pick(["ANY", "ALL", "NONE"])) tags.weight \(comparison()) \(rng.int(in: -2...9))", [])
        case 17: return ("SUBQUERY(tags, $t, $t.weight > \(rng.int(in: -2...6)) AND $t != %@).@count >= \(rng.int(in: 0...2))", [tag()])
        case 18: return ("SUBQUERY(tags, $t, $t == %@ OR $t.name BEGINSWITH[c] 'u').@count > 0", [tag()])
        case 19: return ("folder.name ==\(rng.pick(["", "[c]"])) %@", [.string(rng.pick(ObjectWorld.folderNames))])
        case 20: return ("rank \(comparison()) \(small)", [])
        default: return (rng.pick(["folder == nil", "folder != nil", "tags.@count == 0", "title IN {'a', 'b', 'c'}"]), [])
        }
    }

    /// One leaf on Tag: the many-to-many from its other side.
    mutating func tagLeaf() -> (String, [PredicateValue]) {
        switch rng.int(in: 0...9) {
        case 0: return ("ANY notes == %@", [note()])
        case 1: return ("%@ IN notes", [note()])
        case 2: return ("NONE notes == %@", [note()])
        case 3: return ("notes.@count \(comparison()) \(rng.int(in: 0...12))", [])
        case 4: return ("ANY notes.folder == %@", [folder()])
        case 5: return ("ANY notes.title ==\(rng.pick(["", "[c]"])) %@", [.string(rng.pick(ObjectWorld.titles))])
        case 6: return ("SELF IN %@", [objects("Tag", count: world.tags.count)])
        case 7: return ("SUBQUERY(notes, $n, $n.folder == %@).@count > 0", [folder()])
        case 8: return ("notes.@max.rank \(comparison()) \(rng.int(in: 0...5))", [])
        default: return ("weight \(comparison()) \(rng.int(in: -2...9))", [])
        }
    }

    /// A case the model refuses and memory refuses too, on its own so that no other term
    /// decides the rows before it is reached: an ordering of objects, an object against text.
    mutating func refusedCase() -> ObjectCase {
        let id = ObjectID("Folder", key: Int64(rng.int(in: 1...world.folders.count))).predicateValue
        switch rng.int(in: 0...3) {
        case 0:
            let op = rng.pick(["<", ">=", "BETWEEN"])
            return ObjectCase(entity: "Note", format: "folder \(op) %@", arguments: [op == "BETWEEN" ? .array([id, rng.chance(0.5) ? id : 9]) : id])
        case 1: return ObjectCase(entity: "Note", format: "title \(rng.pick(["==", "!="])) %@", arguments: [id])
        case 2: return ObjectCase(entity: "Note", format: "SELF IN %@", arguments: [ObjectID("Note", key: 1).predicateValue])
        default: return ObjectCase(entity: "Note", format: "SELF \(rng.pick(["<", "<="])) %@", arguments: [ObjectID("Note", key: 2).predicateValue])
        }
    }

    /// A case: one to three leaves joined by AND and OR, some negated; now and then one that
    /// every backend must refuse.
    package mutating func next() -> ObjectCase {
        if rng.chance(0.03) { return refusedCase() }
        let entity = rng.chance(0.8) ? "Note" : "Tag"
        var parts: [String] = [], arguments: [PredicateValue] = []
        for _ in 0..<rng.int(in: 1...3) {
            var (text, args) = entity == "Note" ? noteLeaf() : tagLeaf()
            if rng.chance(0.2) { text = "NOT (\(text))" }
            parts.append(parts.isEmpty ? text : "\(rng.pick(["AND", "OR"])) \(text)")
            arguments += args
        }
        return ObjectCase(entity: entity, format: parts.joined(separator: " "), arguments: arguments)
    }
}
