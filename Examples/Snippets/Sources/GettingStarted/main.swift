import PQL

// Parse a format string; %@ and %K take arguments, as NSPredicate(format:) does.
let predicate = try PredicateNode(format: "name BEGINSWITH[c] %@ AND age >= %@", "a", 18)
print(predicate)                              // name BEGINSWITH[c] "a" AND age >= 18

// Evaluate it on a value: JSON here, a dictionary or a Swift type of your own elsewhere.
let person = try JSONReader.value(from: #"{"name": "Ángel", "age": 30}"#)
print(try predicate.evaluate(on: person))     // false: [c] ignores case, not accents

let lenient = try PredicateNode(format: "name BEGINSWITH[cd] 'a' AND age >= 18")
print(try lenient.evaluate(on: person))       // true
