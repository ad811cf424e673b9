import Foundation
import PQL

/// A property-list file read into a ``PredicateValue``: binary ones by ``BinaryPropertyList``
/// (bounded, with byte offsets in its errors), XML and OpenStep ones by Foundation, whose
/// error is given its line and reason rather than "The data is not in the correct format".
enum PropertyListFile {
    static func read(_ data: Data, name: String) throws -> PredicateValue {
        if BinaryPropertyList.isBinary(data) {
            do { return try BinaryPropertyList.read(data) } catch {
                throw ReplError("\(name) is not a binary property list PQL can read: \(error.description)",
                                hint: error.hint ?? "export it again from where it came; plutil -lint \(name) checks it")
            }
        }
        let object: Any
        do { object = try PropertyListSerialization.propertyList(from: data, format: nil) } catch {
            throw ReplError("\(name) is not a property list: \(reason(error, in: data))",
                            hint: "fix it there; plutil -lint \(name) checks it")
        }
        guard let value = PredicateValue(any: object) else {
            throw ReplError("\(name) holds values PQL cannot read", hint: "property lists of dictionaries, arrays, strings, numbers, dates and data are read")
        }
        return value
    }

    /// Foundation's reason, with its line, when its debug description gives more than the
    /// generic "The data couldn't be read because it isn't in the correct format".
    static func reason(_ error: Error, in data: Data) -> String {
        let ns = error as NSError
        let detail = (ns.userInfo[NSDebugDescriptionErrorKey] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let detail, !detail.isEmpty else { return ns.localizedDescription }
        // Foundation names the line of most problems, but not of text that ends too soon.
        if detail.localizedCaseInsensitiveContains("EOF"), !detail.contains("line") {
            let lines = data.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            return "the text ends (line \(lines)) before the property list does (Foundation: \(detail))"
        }
        return detail
    }
}
