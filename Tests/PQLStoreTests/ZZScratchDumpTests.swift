import Foundation
import PQL
@testable import PQLStore
import Testing

@Suite struct ZZScratchDump {
    @Test func dump() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        let formats = (try? String(contentsOfFile: "/tmp/sqlt/formats.txt", encoding: .utf8)) ?? ""
        var out = ""
        for line in formats.split(separator: "\n") {
            let parts = line.components(separatedBy: " ||| ")
            let entity = parts.count > 1 ? parts[0] : "Person"
            let format = parts.count > 1 ? parts[1] : parts[0]
            do {
                let q = try EntityQuery(entity, where: format)
                let c = try store.sql(for: q)
                out += "\(format)\n  \(c.sql)\n  \(c.bindings)\n"
            } catch {
                out += "\(format)\n  ERROR \(error.kind) \(error.message) | \(error.hint ?? "-") | \(String(describing: error.range))\n"
            }
        }
        try out.write(toFile: "/tmp/sqlt/out.txt", atomically: true, encoding: .utf8)
    }
}
