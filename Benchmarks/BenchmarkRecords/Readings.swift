import Foundation
import PQL
import PQLStore

/// The rows `records` reads on both stores (pql-bench, pql-postgres-bench): a Codable struct of
/// a handful of mixed columns, an Int64 key, text, numbers, an optional boolean, a date and
/// optional text, generated the same way every run.
package struct Reading: Codable, Equatable, Sendable {
    package var id: Int64
    package var name: String
    package var score: Double
    package var count: Int
    package var flag: Bool?
    package var created: Date
    package var note: String?

    package init(id: Int64, name: String, score: Double, count: Int, flag: Bool?, created: Date, note: String?) {
        (self.id, self.name, self.score, self.count, self.flag, self.created, self.note) = (id, name, score, count, flag, created, note)
    }

    package static let entity = "Reading"

    package static let model: StoreModel = {
        do {
            return try StoreModel([ModelEntity(entity, attributes: [
                ModelAttribute("name", .string, isOptional: false), ModelAttribute("score", .double, isOptional: false),
                ModelAttribute("count", .integer64, isOptional: false), ModelAttribute("flag", .boolean),
                ModelAttribute("created", .date, isOptional: false), ModelAttribute("note", .string),
            ])])
        } catch { fatalError("the records model is invalid: \(error)") }
    }()

    /// Reading `i` of the `n`, keyed `i` (the stores number rows 1… in insertion order).
    package static func generate(_ n: Int) -> [Reading] {
        (1...max(1, n)).map(reading)
    }

    private static func reading(_ i: Int) -> Reading {
        let flag: Bool? = i % 3 == 0 ? nil : i % 2 == 0
        let note: String? = i % 2 == 0 ? "note \(i)" : nil
        let score = Double(i) * 0.25 - 1000
        let created = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(i) * 60.5)
        return Reading(id: Int64(i), name: "reading \(i) of the sensor at station \(i % 97)", score: score,
                       count: (i * 7919) % 100_000, flag: flag, created: created, note: note)
    }

    /// The rows for an import: every column but the key, which the store assigns.
    package static func table(_ readings: [Reading]) -> ImportTable {
        ImportTable(columns: ["name", "score", "count", "flag", "created", "note"],
                    types: [.string, .double, .integer64, .boolean, .date, .string],
                    optional: [false, false, false, true, false, true],
                    rows: readings.map { r in
                        [.string(r.name), .double(r.score), .int(Int64(r.count)), r.flag.map(PredicateValue.bool) ?? .null,
                         .date(r.created), r.note.map(PredicateValue.string) ?? .null]
                    })
    }
}
