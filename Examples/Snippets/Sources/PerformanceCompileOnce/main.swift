import PQL

struct Reading: PredicateReadable {
    var sensor: String
    var value: Double
    static let predicateKeys: PredicateKeys<Reading> = [
        "sensor": .string { $0.sensor },
        "value": .double { $0.value },
    ]
}

let readings = (0..<100_000).map { Reading(sensor: "s\($0 % 7)", value: Double($0 % 1_000) / 10) }

// Compile once: keys are resolved, constants folded and patterns compiled here, not per element.
let alarm = try PredicateNode(format: "sensor IN {'s1', 's3'} AND value > 99.5").compiled(for: Reading.self)

// indices(matching:) avoids copying the matching elements; filter builds the array.
let positions = try readings.indices(matching: alarm)
print(positions.count)
