import Foundation
import PQL
@testable import PQLStore
import Testing

/// Names SQLite takes for one another (issue 13, item 1): it compares table, index and column
/// names ignoring ASCII case, so `Person` and `person` would share a table and `id` and `ID` a
/// column. Every way a model is made refuses them, naming both, as do names the store keeps
/// for itself; names that differ in more than ASCII case stay apart.
@Suite struct SQLNameCollisionTests {
    private func failure(_ body: () throws(StoreError) -> Void) -> StoreError? {
        do { try body(); return nil } catch { return error }
    }

    private func model(_ entities: [ModelEntity]) -> StoreError? {
        failure { () throws(StoreError) in _ = try StoreModel(entities) }
    }

    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    // MARK: Models built in Swift

    @Test func entitiesDifferingOnlyInCase() {
        let e = model([ModelEntity("Person"), ModelEntity("person")])
        #expect(e?.kind == .invalidModel)
        #expect(e?.message == "entities 'Person' and 'person' differ only in case, which SQLite ignores in table names")
        #expect(e?.hint?.contains("rename one") == true)
        let tables = model([ModelEntity("A", table: "people"), ModelEntity("B", table: "PEOPLE")])
        #expect(tables?.message == "entities 'A' and 'B' would share one table: SQLite takes 'PEOPLE' for 'people'")
        // Case beyond ASCII is not folded by SQLite: these are two tables.
        #expect(model([ModelEntity("Émile"), ModelEntity("émile")]) == nil)
    }

    @Test func columnsDifferingOnlyInCase() {
        let e = model([ModelEntity("T", attributes: [ModelAttribute("id", .integer64), ModelAttribute("ID", .string)])])
        #expect(e?.message == "attribute T.id and attribute T.ID use the columns 'id' and 'ID', which SQLite takes for one")
        let mapped = model([ModelEntity("T", attributes: [ModelAttribute("a", .string, column: "x"), ModelAttribute("b", .string, column: "X")])])
        #expect(mapped?.message == "attribute T.a and attribute T.b use the columns 'x' and 'X', which SQLite takes for one")
        // Sibling sub-entities share their root's table, so their columns meet there.
        let siblings = model([ModelEntity("Root"), ModelEntity("A", attributes: [ModelAttribute("name", .string)], parent: "Root"),
                              ModelEntity("B", attributes: [ModelAttribute("Name", .string)], parent: "Root")])
        #expect(siblings?.message == "attribute A.name and attribute B.Name use the columns 'name' and 'Name', which SQLite takes for one")
        let key = model([ModelEntity("Airline", attributes: [ModelAttribute("code", .string)]),
                         ModelEntity("Flight", attributes: [ModelAttribute("Carrier", .string)],
                                     relationships: [ModelRelationship("airline", to: "Airline", foreignKeyColumn: "carrier", referencedColumn: "code")])])
        #expect(key?.message == "attribute Flight.Carrier and relationship Flight.airline use the columns 'Carrier' and 'carrier', which SQLite takes for one")
        // The same name twice is one column, as the demo's carrier key is.
        #expect(model([ModelEntity("Airline", attributes: [ModelAttribute("carrier", .string)]),
                       ModelEntity("Flight", attributes: [ModelAttribute("carrier", .string)],
                                   relationships: [ModelRelationship("airline", to: "Airline", foreignKeyColumn: "carrier", referencedColumn: "carrier")])]) == nil)
    }

    @Test func namesTheStoreKeeps() throws {
        let key = model([ModelEntity("T", attributes: [ModelAttribute("z_pk", .string)])])
        #expect(key?.message == "the primary key and attribute T.z_pk use the columns 'Z_PK' and 'z_pk', which SQLite takes for one")
        #expect(key?.hint?.contains("the store keeps 'Z_PK' for itself") == true)
        #expect(model([ModelEntity("T", attributes: [ModelAttribute("Z_PK", .string)])])?.message
                == "the primary key and attribute T.Z_PK both use the column 'Z_PK'")
        // An integer attribute on the key column is the key itself (how inferred models read `id`).
        #expect(model([ModelEntity("T", attributes: [ModelAttribute("id", .integer64)], primaryKey: "id")]) == nil)
        let tree = model([ModelEntity("Root", attributes: [ModelAttribute("z_ent", .integer64)]), ModelEntity("Sub", parent: "Root")])
        #expect(tree?.message == "the entity column and attribute Root.z_ent use the columns 'Z_ENT' and 'z_ent', which SQLite takes for one")
        #expect(model([ModelEntity("Z_PQLMETADATA")])?.message.hasPrefix("entity 'Z_PQLMETADATA' cannot use the table name") == true)
        #expect(model([ModelEntity("x", table: "z_pqlMetadata")])?.kind == .invalidModel)
        #expect(model([ModelEntity("SQLite_things")])?.kind == .invalidModel)

        // Outside an inheritance tree Z_ENT is an ordinary column (it was once left out of the table).
        let store = try PredicateStore.inMemory(StoreModel([ModelEntity("T", attributes: [ModelAttribute("Z_ENT", .integer64)])]))
        try store.insert("T", ["Z_ENT": 7])
        #expect(try store.fetch(EntityQuery("T", where: "Z_ENT == 7")).count == 1)
    }

    /// Index names are made from table and column names; two that SQLite takes for one would
    /// leave the second unmade (a UNIQUE one no longer enforced).
    @Test func indexNamesThatCollide() {
        let e = failure { () throws(StoreError) in
            _ = try PredicateStore.inMemory(StoreModel([
                ModelEntity("A", attributes: [ModelAttribute("b_c", .string, isUnique: true)]),
                ModelEntity("A_b", attributes: [ModelAttribute("C", .string, isUnique: true)]),
            ]))
        }
        #expect(e?.kind == .invalidModel)
        #expect(e?.message == "the schema needs index 'A_b_c_unique' and index 'A_b_C_unique' (on A_b), which SQLite takes for one name")
        let table = failure { () throws(StoreError) in
            _ = try PredicateStore.inMemory(StoreModel([
                ModelEntity("T", attributes: [ModelAttribute("x", .string, isIndexed: true)]),
                ModelEntity("t_X_index"),
            ]))
        }
        #expect(table?.message == "the schema needs index 'T_x_index' and table 't_X_index', which SQLite takes for one name")
    }

    // MARK: Model files

    @Test func jsonModelFiles() {
        let e = ModelLoaderTests.json(#"{"entities": [{"name": "Person"}, {"name": "PERSON"}]}"#)
        #expect(e?.kind == .invalidModel)
        #expect(e?.message.contains("entities 'Person' and 'PERSON' differ only in case") == true, "\(String(describing: e))")
        let keys = ModelLoaderTests.json(#"{"entities": [{"name": "P", "attributes": [{"name": "id", "type": "int"}, {"name": "Id", "type": "string"}]}]}"#)
        #expect(keys?.message.contains("attribute P.id and attribute P.Id use the columns 'id' and 'Id'") == true, "\(String(describing: keys))")
    }

    @Test func xcodeModels() throws {
        let r = try ModelLoaderTests.xcode(ModelLoaderTests.document("""
            <entity name="Person" representedClassName="Person" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="Name" optional="YES" attributeType="String"/>
            </entity>
            """))
        guard case .failure(let e) = r else { Issue.record("expected an error"); return }
        #expect(e.kind == .invalidModel)
        #expect(e.message.contains("attribute Person.name and attribute Person.Name use the columns 'name' and 'Name'"), "\(e)")
    }

    // MARK: Files

    /// A table the file already has under another case (made by another program, or by a
    /// model whose entity was spelled otherwise) is never silently taken for the model's.
    @Test func objectsTheFileHasUnderAnotherCase() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        let first = try PredicateStore(path: path, model: StoreModel([ModelEntity("person", attributes: [ModelAttribute("v", .string)])]))
        try first.insert("person", ["v": "kept"])
        let e = failure { () throws(StoreError) in
            _ = try PredicateStore(path: path, model: StoreModel([ModelEntity("Person", attributes: [ModelAttribute("w", .integer64)])]))
        }
        // The store saved its model: 'Person' replacing 'person' would drop its data (a
        // renamingIdentifier "person" would rename the table instead).
        #expect(e?.kind == .modelMismatch)
        #expect(e?.modelChanges.map(\.description) == ["entity person: removed (1 object holds data)"])
        // A table another program made is never taken for the model's.
        do {
            let maker = try SQLiteConnection(path: dir.appendingPathComponent("other.sqlite").path)
            try maker.execute("CREATE TABLE person (v TEXT)")
        }
        let foreign = failure { () throws(StoreError) in
            _ = try PredicateStore(path: dir.appendingPathComponent("other.sqlite").path,
                                   model: StoreModel([ModelEntity("Person", attributes: [ModelAttribute("w", .integer64)])]))
        }
        #expect(foreign?.kind == .invalidModel)
        #expect(foreign?.message == "the database already has a table 'person', which SQLite would take for the table 'Person' the model needs")
        #expect(foreign?.hint?.contains("'person'") == true)
        let added = failure { () throws(StoreError) in try first.addEntities([ModelEntity("PERSON")]) }
        #expect(added?.message == "entities 'person' and 'PERSON' differ only in case, which SQLite ignores in table names")
        #expect(try first.fetch(EntityQuery("person")).map { $0["v"] } == ["kept"])
        // Reopening with the same spelling keeps the table.
        #expect(throws: Never.self) { try PredicateStore(path: path, model: StoreModel([ModelEntity("person", attributes: [ModelAttribute("v", .string)])])) }
    }

    /// A column named rowid (of another program's table) hides SQLite's row key behind it: the
    /// inferred model reads rows by another of its names.
    @Test func inferredTablesWithARowidColumn() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("other.sqlite").path
        do {
            let maker = try SQLiteConnection(path: path)
            try maker.execute("CREATE TABLE t (ROWID TEXT, v TEXT)")
            try maker.execute("INSERT INTO t VALUES ('a', 'x'), ('b', 'y')")
        }
        let store = try PredicateStore(path: path)
        let t = try store.model.entity(named: "t")
        #expect(t.primaryKey == "_rowid_")
        #expect(try store.fetchIDs(EntityQuery("t", where: "v == 'y'")) == [2])
        #expect(try store.fetch(EntityQuery("t", where: "ROWID == 'b'")).map { $0["v"] } == ["y"])
    }
}
