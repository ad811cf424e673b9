import Foundation
import PQL
import PQLStore
import PQLTestSupport
import Testing

/// Issue 27, item 4: memory agrees with the SQLite store on objects and many-to-many links.
/// Seeded worlds of folders, notes and tags (`ObjectWorld`) and generated predicates that
/// take objects as keys, IDs and records (`ObjectCaseGenerator`); every case must give the
/// same keys in memory and in the store, or an error in both.
@Suite struct ObjectDifferentialTests {
    static let seeds: [UInt64] = [27, 0xB0B]
    static let casesPerSeed = Int(ProcessInfo.processInfo.environment["PQL_OBJECT_CASES"] ?? "") ?? 1_100

    static func store(_ world: ObjectWorld) throws -> PredicateStore {
        let store = try PredicateStore.inMemory(ObjectWorld.model)
        #expect(try store.insert("Folder", world.folders) == Array(1...Int64(world.folders.count)))
        #expect(try store.insert("Tag", world.tags) == Array(1...Int64(world.tags.count)))
        #expect(try store.insert("Note", world.notes) == Array(1...Int64(world.notes.count)))
        return store
    }

    @Test(arguments: seeds) func memoryAndSQLiteAgree(seed: UInt64) throws {
        let world = ObjectWorld(seed: seed)
        let store = try Self.store(world)
        var generator = ObjectCaseGenerator(seed: seed &* 31, world: world)
        var agreed = 0, bothRaise = 0, nonEmpty = 0
        for _ in 0..<Self.casesPerSeed {
            let c = generator.next()
            let predicate = try c.predicate()
            let memory = ObjectWorld.memory(predicate, c.entity == "Note" ? world.memoryNotes : world.memoryTags)
            let stored: Result<[Int64], StoreError>
            do { stored = .success(try store.fetchIDs(EntityQuery(c.entity, predicate: predicate))) } catch {
                stored = .failure(error)
            }
            switch (memory, stored) {
            case (.success(let m), .success(let s)):
                #expect(m == s.sorted(), "\(c)")
                if m == s.sorted() { agreed += 1 }
                if !m.isEmpty { nonEmpty += 1 }
            case (.failure, .failure):
                bothRaise += 1
            case (.success(let m), .failure(let e)):
                Issue.record("\(c): memory gives \(m), the store raises \(e.kind): \(e.message)")
            case (.failure(let e), .success(let s)):
                Issue.record("\(c): the store gives \(s), memory raises \(e.kind): \(e.message)")
            }
        }
        print("object differential, seed \(seed): \(Self.casesPerSeed) cases, \(agreed) agree on rows (\(nonEmpty) select some), \(bothRaise) raise in both")
        // The cases must mean something: most agree on rows, and many select some.
        #expect(agreed >= Self.casesPerSeed * 9 / 10, "agreed \(agreed), both raise \(bothRaise)")
        #expect(nonEmpty >= Self.casesPerSeed / 4, "only \(nonEmpty) cases selected any row")
    }
}
