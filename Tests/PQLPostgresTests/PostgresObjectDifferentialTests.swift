import Foundation
import PQL
import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// Issue 27, item 4, on three backends: the generated object and many-to-many cases of
/// `ObjectDifferentialTests` give the same keys in memory, in SQLite and in PostgreSQL (or an
/// error in all three).
@Suite struct PostgresObjectDifferentialTests {
    static let seeds: [UInt64] = [27, 0xB0B]
    static let casesPerSeed = Int(ProcessInfo.processInfo.environment["PQL_OBJECT_CASES"] ?? "") ?? 1_100

    @Test(arguments: seeds) func memorySQLiteAndPostgreSQLAgree(seed: UInt64) async throws {
        let world = ObjectWorld(seed: seed)
        let sqlite = try PredicateStore.inMemory(ObjectWorld.model)
        _ = try sqlite.insert("Folder", world.folders)
        _ = try sqlite.insert("Tag", world.tags)
        _ = try sqlite.insert("Note", world.notes)
        try await TestServer.withStore(model: ObjectWorld.model) { store, _ in
            _ = try await store.createTables()
            try await store.installFunctions()
            #expect(try await store.insert("Folder", world.folders) == Array(1...Int64(world.folders.count)))
            #expect(try await store.insert("Tag", world.tags) == Array(1...Int64(world.tags.count)))
            #expect(try await store.insert("Note", world.notes) == Array(1...Int64(world.notes.count)))
            var generator = ObjectCaseGenerator(seed: seed &* 31, world: world)
            var agreed = 0, allRaise = 0
            for _ in 0..<Self.casesPerSeed {
                let c = generator.next()
                let predicate = try c.predicate()
                let query = EntityQuery(c.entity, predicate: predicate)
                let memory = ObjectWorld.memory(predicate, c.entity == "Note" ? world.memoryNotes : world.memoryTags)
                let lite: [Int64]?, server: [Int64]?
                do { lite = try sqlite.fetchIDs(query).sorted() } catch { lite = nil }
                do { server = try await store.fetchIDs(query).sorted() } catch let error as StoreError {
                    server = nil
                    if case .success(let m) = memory { Issue.record("\(c): memory gives \(m), PostgreSQL raises \(error.kind): \(error.message)") }
                }
                switch memory {
                case .success(let m):
                    #expect(lite == m, "\(c): SQLite")
                    #expect(server == m, "\(c): PostgreSQL")
                    if lite == m && server == m { agreed += 1 }
                case .failure(let e):
                    #expect(lite == nil && server == nil, "\(c): memory raises \(e.message), SQLite gives \(lite as Any), PostgreSQL \(server as Any)")
                    allRaise += 1
                }
            }
            print("object differential on PostgreSQL, seed \(seed): \(Self.casesPerSeed) cases, \(agreed) agree on rows, \(allRaise) raise in all three")
            #expect(agreed >= Self.casesPerSeed * 9 / 10)
        }
    }
}
