import Foundation
import PQL
import Testing

/// Issue 28, item 2: the Swift types apps pass as `%@` are predicate values — enums by their raw
/// values, optionals, UUIDs, URLs, decimals, dates and data.
@Suite struct ArgumentTypeTests {
    enum Priority: String { case low, high }
    enum Level: Int { case one = 1, two = 2 }
    struct Flags: OptionSet { let rawValue: Int }

    @Test func enumsAreTheirRawValues() throws {
        #expect(PredicateValue(any: Priority.high) == .string("high"))
        #expect(PredicateValue(any: Level.two) == .int(2))
        #expect(PredicateValue(any: Flags(rawValue: 5)) == .int(5))
        #expect(PredicateValue(any: [Priority.low, Priority.high]) == .array([.string("low"), .string("high")]))
        let optional: Priority? = .low
        #expect(PredicateValue(any: optional) == .string("low"))
        #expect(PredicateValue(any: Priority?.none) == .null)
        let p = try PredicateNode(format: "priority == %@ AND level IN %@", Priority.high, [Level.one, Level.two])
        #expect(p.description == #"priority == "high" AND level IN {1, 2}"#)
        let rows: [PredicateValue] = [.dictionary(["priority": "high", "level": 2]), .dictionary(["priority": "low", "level": 1])]
        #expect(try rows.filter(PredicateNode(format: "priority == %@", Priority.high)).count == 1)
    }

    @Test func foundationValuesAreArguments() throws {
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let site = URL(string: "https://example.com/a")!
        let price = Decimal(string: "12.50")!
        let day = Date(timeIntervalSinceReferenceDate: 86_400)
        let bytes = Data([1, 2])
        let p = try PredicateNode(format: "id == %@ AND site == %@ AND price == %@ AND day == %@ AND blob == %@", id, site, price, day, bytes)
        let row: PredicateValue = .dictionary(["id": .string(id.uuidString), "site": "https://example.com/a", "price": .decimal(price),
                                              "day": .date(day), "blob": .data(bytes)])
        #expect(try [row].filter(p).count == 1)
    }
}
