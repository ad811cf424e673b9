import PQL

// JSON: objects are dictionaries, and a missing key reads as nil.
let json = try JSONReader.value(from: #"[{"city": "Zürich", "temp": 21.5}, {"city": "Lima"}]"#)
let warm = try json.collectionElements!.filter(PredicateNode(format: "temp > 20"))   // Zürich

// [String: Any] dictionaries work directly.
let rows: [[String: Any]] = [["city": "São Paulo", "temp": 30], ["city": "Oslo", "temp": 4]]
let paulo = try rows.filter(PredicateNode(format: "city ==[cd] 'sao paulo'"))        // São Paulo

// Any Codable type, through its encoded form: convenient rather than fast.
struct Item: Codable {
    var name: String
    var price: Double
}
let cheap = try CompiledPredicate(PredicateNode(format: "price < 10"),
                                  reader: EncodableValues.reader(for: Item.self))
let bargains = try [Item(name: "pen", price: 2), Item(name: "lamp", price: 40)].filter(cheap)  // pen
print(warm.count, paulo.count, bargains.map(\.name))
