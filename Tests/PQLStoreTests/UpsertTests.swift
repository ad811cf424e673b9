import Foundation
import PQL
@testable import PQLStore
import PQLTestSupport
import Testing

/// `upsert`: insert or update by a unique attribute, with the checks insert and update make.
@Suite("upsert")
struct UpsertTests {
    static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Airline", attributes: [
                    ModelAttribute("carrier", .string, isOptional: false, isUnique: true),
                    ModelAttribute("name", .string),
                    ModelAttribute("fleet", .integer32),
                ], relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline")]),
                ModelEntity("Flight", attributes: [
                    ModelAttribute("code", .string),
                    ModelAttribute("carrier", .string),
                    ModelAttribute("seats", .integer64),
                ], relationships: [ModelRelationship("airline", to: "Airline", inverse: "flights", foreignKeyColumn: "carrier", referencedColumn: "carrier")],
                   uniqueness: [["code"]]),
            ])
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()

    @Test func insertsThenUpdatesTheSameObject() throws {
        let store = try PredicateStore.inMemory(Self.model)
        let ua = try store.upsert("Airline", ["carrier": "UA", "name": "United", "fleet": 800], onConflict: "carrier")
        let again = try store.upsert("Airline", ["carrier": "UA", "name": "United Airlines"], onConflict: "carrier")
        #expect(again == ua)
        let records = try store.fetch(EntityQuery("Airline"))
        #expect(records.count == 1)
        // Only the keys given change: fleet keeps its value.
        #expect(records[0].values["name"] == "United Airlines")
        #expect(records[0].values["fleet"] == 800)
        let dl = try store.upsert("Airline", ["carrier": "DL"], onConflict: "carrier")
        #expect(dl != ua)
        #expect(try store.count(EntityQuery("Airline")) == 2)
    }

    @Test func aUniquenessConstraintOfOneAttributeCounts() throws {
        let store = try PredicateStore.inMemory(Self.model)
        try store.insert("Airline", ["carrier": "UA"])
        let f = try store.upsert("Flight", ["code": "UA1", "airline": "UA", "seats": 150], onConflict: "code")
        #expect(try store.upsert("Flight", ["code": "UA1", "seats": 180], onConflict: "code") == f)
        #expect(try store.fetch(EntityQuery("Flight"))[0].values["seats"] == 180)
    }

    @Test func refusesAConflictKeyThatIsNotUnique() throws {
        let store = try PredicateStore.inMemory(Self.model)
        #expect { try store.upsert("Airline", ["carrier": "UA", "name": "United"], onConflict: "name") } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.kind == .invalidValue && e.message.contains("Airline.name is not unique") && e.hint?.contains("carrier") == true
        }
        #expect { try store.upsert("Airline", ["carrier": "UA"], onConflict: "carier") } throws: { error in
            (error as? StoreError)?.kind == .unknownKey && (error as? StoreError)?.hint?.contains("carrier") == true
        }
        #expect { try store.upsert("Airline", ["name": "United"], onConflict: "carrier") } throws: { error in
            (error as? StoreError)?.message.contains("needs a value for carrier") == true
        }
        #expect(try store.count(EntityQuery("Airline")) == 0)
    }

    @Test func checksValuesAndLinksOnBothPaths() throws {
        let store = try PredicateStore.inMemory(Self.model)
        try store.insert("Airline", [["carrier": "UA"], ["carrier": "HA"]])
        // Insert path: a link to no airline, a value of the wrong type.
        #expect { try store.upsert("Flight", ["code": "ZZ1", "carrier": "ZZ"], onConflict: "code") } throws: { error in
            (error as? StoreError)?.kind == .constraint && (error as? StoreError)?.message.contains("would link to no Airline") == true
        }
        #expect { try store.upsert("Airline", ["carrier": "AA", "fleet": "many"], onConflict: "carrier") } throws: { error in
            (error as? StoreError)?.message.contains("Airline.fleet") == true
        }
        // Update path: the same checks, and nothing changes.
        try store.upsert("Flight", ["code": "UA1", "carrier": "UA"], onConflict: "code")
        #expect { try store.upsert("Flight", ["code": "UA1", "airline": "ZZ"], onConflict: "code") } throws: { error in
            (error as? StoreError)?.kind == .constraint
        }
        #expect { try store.upsert("Airline", ["carrier": "UA", "fleet": 1.5], onConflict: "carrier") } throws: { error in
            (error as? StoreError)?.message.contains("Airline.fleet") == true
        }
        #expect { try store.upsert("Airline", ["carrier": "UA", "fleet": .int(1 << 40)], onConflict: "carrier") } throws: { error in
            (error as? StoreError)?.message.contains("out of its range") == true
        }
        #expect(try store.count(EntityQuery("Flight", where: "airline.carrier == 'UA'")) == 1)
        #expect(try store.count(EntityQuery("Airline")) == 2)
        #expect(try store.upsert("Flight", ["code": "UA1", "airline": "HA"], onConflict: "code") > 0)
        #expect(try store.count(EntityQuery("Flight", where: "airline.carrier == 'HA'")) == 1)
    }

    /// In an inheritance tree the unique attribute spans the shared table: an object of a
    /// sibling entity with the value is an error, not an update of the wrong kind of object.
    @Test func respectsEntitiesOfAnInheritanceTree() throws {
        let model = try StoreModel([
            ModelEntity("Vehicle", attributes: [ModelAttribute("plate", .string, isOptional: false, isUnique: true), ModelAttribute("seats", .integer64)]),
            ModelEntity("Car", parent: "Vehicle"),
            ModelEntity("Truck", attributes: [ModelAttribute("load", .double)], parent: "Vehicle"),
        ])
        let store = try PredicateStore.inMemory(model)
        let car = try store.upsert("Car", ["plate": "X1", "seats": 4], onConflict: "plate")
        #expect { try store.upsert("Truck", ["plate": "X1", "load": 2.5], onConflict: "plate") } throws: { error in
            (error as? StoreError)?.kind == .constraint && (error as? StoreError)?.message.contains("another kind of object") == true
        }
        // The parent entity's upsert finds the car.
        #expect(try store.upsert("Vehicle", ["plate": "X1", "seats": 5], onConflict: "plate") == car)
        #expect(try store.count(EntityQuery("Car", where: "seats == 5")) == 1)
        #expect(try store.count(EntityQuery("Truck")) == 0)
    }

    struct Airline: Encodable {
        var carrier: String
        var name: String
    }

    @Test func upsertsAnEncodableValue() throws {
        let store = try PredicateStore.inMemory(Self.model)
        let ua = try store.upsert("Airline", encoding: Airline(carrier: "UA", name: "United"), onConflict: "carrier")
        #expect(try store.upsert("Airline", encoding: Airline(carrier: "UA", name: "United Airlines"), onConflict: "carrier") == ua)
        #expect(try store.fetch(EntityQuery("Airline")).map { $0.values["name"] } == ["United Airlines"])
    }

    /// Two stores on one file, on two threads, upserting the same keys: one object per key.
    @Test func concurrentWritersEndWithOneObjectPerKey() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-upsert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("upsert.sqlite").path
        let stores = [try PredicateStore(path: path, model: Self.model), try PredicateStore(path: path, model: Self.model)]
        let errors = LockedValue<[String]>([])
        let keys = LockedValue<[Int: Set<Int64>]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for round in 0..<60 {
                let k = round % 5
                do {
                    let id = try stores[writer].upsert("Airline", ["carrier": .string("C\(k)"), "fleet": .int(Int64(writer * 1000 + round))], onConflict: "carrier")
                    keys.withLock { _ = $0[k, default: []].insert(id) }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(errors.current == [])
        #expect(try stores[0].count(EntityQuery("Airline")) == 5)
        #expect(keys.current.values.allSatisfy { $0.count == 1 })
        #expect(try stores[1].count(EntityQuery("Airline", where: "carrier == 'C0'")) == 1)
    }
}
