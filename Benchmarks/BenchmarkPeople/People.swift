import PQL

// The people of the anchors (Benchmarks/README.md), shared by pql-bench and pql-postgres-bench, reproduced exactly: the same PRNG, seed,
// vocabularies and draw order, so the data and the match counts equal the anchors'.

// MARK: - Deterministic PRNG

/// SplitMix64 (Steele, Lea, Flood 2014). Deterministic across platforms.
package struct SplitMix64: RandomNumberGenerator {
    package var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform-ish integer in 0..<n (modulo bias is irrelevant here).
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

// MARK: - Model

package struct Person: Sendable {
    package var id: Int
    package var name: String
    package var age: Int
    package var score: Double
    package var city: String
    package var tags: [String]
    package var email: String?
}

extension Person: PredicateReadable {
    package static let predicateKeys: PredicateKeys<Person> = [
        "age": .int { $0.age }, "name": .string(\.name), "score": .double { $0.score },
        "city": .string(\.city), "tags": .strings(\.tags), "email": .string(\.email),
        "id": .int { $0.id },
    ]
}

// MARK: - Vocabularies

/// ~500 first names from many cultures, including accented / non-ASCII ones
/// (José, Zoë, Ångström, Ángel, Hoàng, Thắng, Łukasz, İbrahim, ...).
/// Duplicates (if any) are removed in order by `firstNames`.
private let rawFirstNames: [String] = [
    // English
    "James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph", "Thomas", "Charles",
    "Christopher", "Daniel", "Matthew", "Anthony", "Mark", "Donald", "Steven", "Paul", "Andrew", "Joshua",
    "Kenneth", "Kevin", "Brian", "George", "Timothy", "Ronald", "Edward", "Jason", "Jeffrey", "Ryan",
    "Jacob", "Gary", "Nicholas", "Eric", "Jonathan", "Stephen", "Larry", "Justin", "Scott", "Brandon",
    "Benjamin", "Samuel", "Gregory", "Alexander", "Frank", "Patrick", "Raymond", "Jack", "Dennis", "Jerry",
    "Tyler", "Aaron", "Adam", "Henry", "Nathan", "Douglas", "Zachary", "Peter", "Kyle", "Walter",
    "Ethan", "Jeremy", "Harold", "Keith", "Christian", "Roger", "Noah", "Gerald", "Carl", "Terry",
    "Sean", "Austin", "Arthur", "Lawrence", "Jesse", "Dylan", "Bryan", "Joe", "Jordan", "Billy",
    "Bruce", "Albert", "Willie", "Gabriel", "Logan", "Alan", "Juan", "Wayne", "Roy", "Ralph",
    "Randy", "Eugene", "Vincent", "Russell", "Elijah", "Louis", "Bobby", "Philip", "Johnny", "Mary",
    "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen", "Lisa",
    "Nancy", "Betty", "Margaret", "Sandra", "Ashley", "Kimberly", "Emily", "Donna", "Michelle", "Carol",
    "Amanda", "Dorothy", "Melissa", "Deborah", "Stephanie", "Rebecca", "Sharon", "Laura", "Cynthia", "Kathleen",
    "Amy", "Angela", "Shirley", "Anna", "Brenda", "Pamela", "Emma", "Nicole", "Helen", "Samantha",
    "Katherine", "Christine", "Debra", "Rachel", "Carolyn", "Janet", "Catherine", "Maria", "Heather", "Diane",
    "Ruth", "Julie", "Olivia", "Joyce", "Virginia", "Victoria", "Kelly", "Lauren", "Christina", "Joan",
    "Evelyn", "Judith", "Megan", "Andrea", "Cheryl", "Hannah", "Jacqueline", "Martha", "Gloria", "Teresa",
    "Ann", "Sara", "Madison", "Frances", "Kathryn", "Janice", "Jean", "Abigail", "Alice", "Julia",
    "Judy", "Sophia", "Grace", "Denise", "Amber", "Doris", "Marilyn", "Danielle", "Beverly", "Isabella",
    "Theresa", "Diana", "Natalie", "Brittany", "Charlotte", "Marie", "Kayla", "Alexis", "Lori", "Angel",
    "Angelo", "Angus", "Evangeline", "Ava", "Mia", "Amelia", "Harper", "Aria", "Abby", "Alyssa",
    "Audrey", "Aurora", "Addison", "Autumn", "Adrian", "Aiden", "Alex", "Andre", "Arnold", "Allen",
    "Antonio", "Archie", "Ivy", "Ruby", "Oscar", "Hugo", "Freddie", "Poppy", "Isla", "Lily",
    // Spanish / Portuguese
    "José", "María", "Jesús", "Ángel", "Ángela", "Ángeles", "Andrés", "Álvaro", "Íñigo", "Iñaki",
    "Begoña", "Concepción", "Ramón", "Raúl", "Sebastián", "Martín", "Lucía", "Sofía", "Valentina", "Camila",
    "Mateo", "Santiago", "Diego", "Alejandro", "Javier", "Fernando", "Carlos", "Miguel", "Pablo", "Jorge",
    "Luis", "Rocío", "Inés", "Nuria", "Pilar", "Guadalupe", "Joaquín", "Tomás", "Nicolás", "Agustín",
    "Benjamín", "Simón", "Óscar", "Verónica", "Mónica", "Beatriz", "Rosário", "João", "Conceição", "Gonçalo",
    "Sebastião", "Estêvão", "Leonor", "Thiago", "Gabriela", "Mariana", "Luana", "Ximena", "Alba", "Aitana",
    // French
    "François", "Françoise", "Hélène", "Élise", "Élodie", "Léa", "Chloé", "Zoé", "Noémie", "Mélanie",
    "Cécile", "Amélie", "Renée", "René", "Jérôme", "Sébastien", "Stéphane", "Frédéric", "Benoît", "Loïc",
    "Gaëlle", "Raphaël", "Mathéo", "Anaïs", "Maëlle", "Joël", "Noël", "Aurélie", "Gérard", "Honoré",
    "Thérèse", "Désirée", "Céline", "Clémence", "Margaux", "Étienne", "Évangéline", "Yannick", "Camille", "Manon",
    "Julien", "Antoine", "Nathalie", "Sylvie", "Isabelle", "Océane", "Agathe", "Adèle", "Aimée", "Anaëlle",
    // German / Dutch / Nordic
    "Jürgen", "Jörg", "Günter", "Björn", "Søren", "Ångström", "Åsa", "Åke", "Mårten", "Märta",
    "Göran", "Sören", "Lukas", "Maximilian", "Felix", "Leon", "Jonas", "Hannes", "Katharina", "Lena",
    "Ursula", "Gisela", "Brigitte", "Wolfgang", "Dieter", "Uwe", "Heike", "Sigrún", "Þórður", "Guðrún",
    "Ragnhildur", "Bjørn", "Ingrid", "Astrid", "Freya", "Sven", "Lars", "Nils", "Henrik", "Magnus",
    "Eirik", "Kjell", "Liv", "Sigrid", "Elsa", "Maja", "Zoë", "Chloë", "Anouk", "Daan",
    "Sanne", "Bram", "Joëlle", "Anke", "Annika", "Axel", "Ärni", "Östen", "Øystein", "Åsmund",
    // Slavic / Eastern Europe
    "Łukasz", "Paweł", "Małgorzata", "Wojciech", "Agnieszka", "Krzysztof", "Zbigniew", "Jiří", "Tomáš", "Lucie",
    "Kateřina", "Žofie", "Ondřej", "Věra", "Miloš", "Dušan", "Đorđe", "Snežana", "Zoran", "Ivana",
    "Goran", "Ştefan", "Ioana", "Andrei", "Mihai", "Dmitri", "Olga", "Natasha", "Sergei", "Anastasia",
    "Ivan", "Yulia", "Oksana", "Bogdan", "Aleksandra", "Anja", "Arkadiusz", "Ľubomír", "Radek", "Zdeněk",
    // Turkish
    "Çağla", "Gülşen", "Şule", "Ömer", "Özge", "Ayşe", "Mehmet", "Emre", "İbrahim", "Yiğit",
    "Aslı", "Ahmet", "Burak", "Elif", "Zeynep",
    // Vietnamese
    "Hoàng", "Thắng", "Quang", "Giang", "Trang", "Khang", "Nguyệt", "Phương", "Dũng", "Hùng",
    "Thảo", "Linh", "Anh", "Tuấn", "Đức", "Huy", "Hạnh", "Sang",
    // Chinese (pinyin)
    "Wei", "Fang", "Yang", "Jing", "Li", "Ming", "Xiaoling", "Hao", "Yan", "Lei",
    "Tao", "Qiang", "Guang", "Jun", "Xin", "Ying", "Lan", "Mei", "Hui", "Zhang",
    // Japanese
    "Haruto", "Yui", "Sōta", "Yūki", "Ren", "Sakura", "Hina", "Kenji", "Takeshi", "Akira",
    "Hiroshi", "Yoko", "Emi", "Aoi", "Riku", "Ōta",
    // Arabic / Hebrew / Indian
    "Mohammed", "Ahmed", "Fatima", "Aisha", "Omar", "Ali", "Hassan", "Layla", "Yusuf", "Zainab",
    "Noor", "Karim", "Amir", "Leila", "Rania", "Tariq", "Priya", "Arjun", "Aarav", "Ananya",
    "Rohan", "Vikram", "Sanjay", "Deepak", "Lakshmi", "Aditi", "Anjali", "Rahul", "Kavya", "Ishaan",
    "Devi", "Avi", "Yael", "Noa", "Eitan", "Tamar", "Abdullah", "Amina", "Anand", "Aryan",
    // African
    "Kwame", "Amara", "Chidi", "Ngozi", "Sipho", "Thandiwe", "Abebe", "Chiamaka", "Oluwaseun", "Zanele",
    "Kofi", "Ama", "Adaeze", "Ayodele", "Mandla",
    // Irish / Welsh
    "Siobhán", "Seán", "Niamh", "Aoife", "Caoimhe", "Pádraig", "Ciarán", "Róisín", "Eoin", "Dáire",
    "Rhys", "Gwen", "Dafydd", "Seren", "Aisling",
    // Italian / Greek
    "Giuseppe", "Giovanni", "Francesca", "Giulia", "Alessandro", "Lorenzo", "Niccolò", "Chiara", "Matteo", "Federica",
    "Stavros", "Eleni", "Dimitris", "Sofia", "Yannis", "Athanasia", "Arianna", "Alessia", "Antonella", "Agostino",
]

package let firstNames: [String] = {
    var seen = Set<String>()
    return rawFirstNames.filter { seen.insert($0).inserted }
}()

package let cities: [String] = [
    "Paris", "Berlin", "Tokyo", "Lima", "London", "New York", "Los Angeles", "Chicago", "Toronto", "Montréal",
    "Mexico City", "Bogotá", "São Paulo", "Rio de Janeiro", "Buenos Aires", "Santiago", "Madrid", "Barcelona", "Lisbon", "Rome",
    "Milan", "Zürich", "Genève", "Vienna", "Prague", "Kraków", "Warsaw", "Budapest", "Stockholm", "Malmö",
    "Oslo", "Copenhagen", "Helsinki", "Reykjavík", "Amsterdam", "Brussels", "Köln", "München", "Istanbul", "Cairo",
    "Lagos", "Nairobi", "Johannesburg", "Mumbai", "Delhi", "Beijing", "Shanghai", "Seoul", "Hà Nội", "Sydney",
]

/// Tags: ~20 values; "vip" is one of them.
package let tagVocabulary: [String] = [
    "vip", "new", "premium", "trial", "churned", "beta", "admin", "staff", "partner", "reseller",
    "newsletter", "gdpr", "mobile", "desktop", "referral", "enterprise", "student", "nonprofit", "flagged", "verified",
]

package let emailDomains = ["example.com", "mail.example.org", "corp.example.net", "posteo.example", "uni.example.edu"]

// MARK: - Generation

/// Generates `n` deterministic people. ~10% have a nil email; 0-5 distinct tags each.
package func generatePeople(_ n: Int, seed: UInt64 = 0x5EED_1234_ABCD_0001) -> [Person] {
    var rng = SplitMix64(seed: seed)
    var out: [Person] = []
    out.reserveCapacity(n)
    for i in 0..<n { out.append(makePerson(id: i + 1, rng: &rng)) }
    return out
}

@inline(__always)
package func makePerson(id: Int, rng: inout SplitMix64) -> Person {
    let name = firstNames[rng.below(firstNames.count)]
    let age = 1 + rng.below(90)  // 1...90
    let score = Double(rng.below(1001)) / 10.0  // 0.0 ... 100.0, one decimal
    let city = cities[rng.below(cities.count)]
    let tagCount = rng.below(6)  // 0...5
    var tags: [String] = []
    if tagCount > 0 {
        tags.reserveCapacity(tagCount)
        while tags.count < tagCount {
            let t = tagVocabulary[rng.below(tagVocabulary.count)]
            if !tags.contains(t) { tags.append(t) }
        }
    }
    let email: String? =
        rng.below(10) == 0
        ? nil
        : "\(name.lowercased()).\(id)@\(emailDomains[rng.below(emailDomains.count)])"
    return Person(id: id, name: name, age: age, score: score, city: city, tags: tags, email: email)
}

/// KVC-style representation. A nil email is represented by an absent key (as NSDictionary would).
@inline(__always)
package func toDict(_ p: Person) -> [String: Any] {
    var d: [String: Any] = [
        "id": p.id, "name": p.name, "age": p.age, "score": p.score, "city": p.city, "tags": p.tags,
    ]
    if let e = p.email { d["email"] = e }
    return d
}
