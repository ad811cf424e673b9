import BenchmarkPeople
import Foundation

// The three baselines of the anchors (Benchmarks/README.md), with the bodies exactly as
// the anchors write them: (a) hand-written closures, (b) Foundation #Predicate, (c) closures
// over `[String: Any]` dictionaries. Each returns the number of matches of `filter`.

let p5Cities = ["Paris", "Berlin", "Tokyo", "Lima"]

// MARK: (a) hand-written closures (literal closures, specialised and inlined into filter)

@inline(never)
func closureFilter(_ id: Int, _ people: [Person]) -> Int {
    switch id {
    case 1: return people.filter { $0.age > 30 }.count
    case 2: return people.filter { $0.age >= 18 && $0.age <= 65 && $0.score >= 50.0 }.count
    case 3: return people.filter { $0.name == "José" }.count
    case 4: return people.filter { $0.name.range(of: "a", options: [.caseInsensitive, .anchored]) != nil }.count
    case 5: return people.filter { p5Cities.contains($0.city) }.count
    case 6:
        return people.filter { $0.name.range(of: "ang", options: [.caseInsensitive, .diacriticInsensitive]) != nil }
            .count
    case 7: return people.filter { $0.tags.contains("vip") }.count
    case 8: return people.filter { ($0.age < 20 || $0.age > 60) && !($0.city == "Paris") && $0.email != nil }.count
    default: fatalError()
    }
}

// MARK: (b) Foundation #Predicate

func makePredicates() -> [Int: Predicate<Person>] {
    let cities4 = p5Cities
    var d: [Int: Predicate<Person>] = [:]
    d[1] = #Predicate<Person> { $0.age > 30 }
    d[2] = #Predicate<Person> { $0.age >= 18 && $0.age <= 65 && $0.score >= 50.0 }
    d[3] = #Predicate<Person> { $0.name == "José" }
    d[4] = #Predicate<Person> { $0.name.localizedLowercase.starts(with: "a") }
    d[5] = #Predicate<Person> { cities4.contains($0.city) }
    // d[6]: not expressible (Benchmarks/README.md, P6)
    d[7] = #Predicate<Person> { $0.tags.contains("vip") }
    d[8] = #Predicate<Person> { ($0.age < 20 || $0.age > 60) && !($0.city == "Paris") && $0.email != nil }
    return d
}

@inline(never)
func predicateFilter(_ pred: Predicate<Person>, _ people: [Person]) throws -> Int {
    try people.filter { try pred.evaluate($0) }.count
}

// MARK: (c) dictionary-based (KVC-like) access

@inline(never)
func dictFilter(_ id: Int, _ dicts: [[String: Any]]) -> Int {
    switch id {
    case 1:
        return dicts.filter { (($0["age"] as? Int) ?? 0) > 30 }.count
    case 2:
        return dicts.filter { d in
            guard let age = d["age"] as? Int, let score = d["score"] as? Double else { return false }
            return age >= 18 && age <= 65 && score >= 50.0
        }.count
    case 3:
        return dicts.filter { ($0["name"] as? String) == "José" }.count
    case 4:
        return dicts.filter {
            ($0["name"] as? String)?.range(of: "a", options: [.caseInsensitive, .anchored]) != nil
        }.count
    case 5:
        return dicts.filter { d in
            guard let c = d["city"] as? String else { return false }
            return p5Cities.contains(c)
        }.count
    case 6:
        return dicts.filter {
            ($0["name"] as? String)?.range(of: "ang", options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }.count
    case 7:
        return dicts.filter { (($0["tags"] as? [String])?.contains("vip")) ?? false }.count
    case 8:
        return dicts.filter { d in
            guard let age = d["age"] as? Int, let city = d["city"] as? String else { return false }
            return (age < 20 || age > 60) && !(city == "Paris") && d["email"] != nil
        }.count
    default: fatalError()
    }
}

