import Foundation
import PQL
import Testing

/// Foundation's numbers become the kind they hold (issue 13, item 4). On Linux `NSNumber as?
/// Bool` succeeds for 0 and 1 (and 1.0), so property-list integers and JSONSerialization's
/// numbers were once read as booleans: wrong types, stored values and exported JSON.
@Suite struct FoundationNumberTests {
    /// The value with its kind spelled out: `==` compares numbers across kinds (1 == YES).
    private func tagged(_ v: PredicateValue?) -> String {
        switch v {
        case .int(let i)?: return "int \(i)"
        case .double(let d)?: return "double \(d)"
        case .bool(let b)?: return "bool \(b)"
        case .decimal(let d)?: return "decimal \(d)"
        case .array(let a)?: return "[" + a.map { tagged($0) }.joined(separator: ", ") + "]"
        case let other?: return "\(other)"
        case nil: return "nil"
        }
    }

    @Test func propertyListNumbersKeepTheirKind() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><array>
            <integer>0</integer><integer>1</integer><integer>2</integer><integer>-1</integer>
            <real>1.0</real><real>0.0</real><real>2.5</real><true/><false/>
            <integer>9223372036854775807</integer>
            </array></plist>
            """
        let object = try PropertyListSerialization.propertyList(from: Data(xml.utf8), format: nil)
        #expect(tagged(PredicateValue(any: object)) == "[int 0, int 1, int 2, int -1, double 1.0, double 0.0, double 2.5, bool true, bool false, int 9223372036854775807]")
        // Binary property lists too.
        let binary = try PropertyListSerialization.data(fromPropertyList: [0, 1, true, 1.0] as [Any], format: .binary, options: 0)
        let decoded = try PropertyListSerialization.propertyList(from: binary, format: nil)
        #expect(tagged(PredicateValue(any: decoded)) == "[int 0, int 1, bool true, double 1.0]")
    }

    @Test func jsonSerializationNumbersKeepTheirKind() throws {
        let object = try JSONSerialization.jsonObject(with: Data("[0, 1, 1.0, 0.0, true, false, 18446744073709551615, -5]".utf8))
        #expect(tagged(PredicateValue(any: object)) == "[int 0, int 1, double 1.0, double 0.0, bool true, bool false, decimal 18446744073709551615, int -5]")
    }

    @Test func nsNumbersMadeInCode() {
        #expect(tagged(PredicateValue(any: NSNumber(value: true))) == "bool true")
        #expect(tagged(PredicateValue(any: NSNumber(value: Int8(1)))) == "int 1")
        #expect(tagged(PredicateValue(any: NSNumber(value: UInt8(0)))) == "int 0")
        #expect(tagged(PredicateValue(any: NSNumber(value: Float(1)))) == "double 1.0")
        #expect(tagged(PredicateValue(any: NSNumber(value: UInt64.max))) == "decimal 18446744073709551615")
        #expect(tagged(PredicateValue(any: NSDecimalNumber(string: "1.25"))) == "decimal 1.25")
        // Swift's own values are unaffected.
        #expect(tagged(PredicateValue(any: Int8(1))) == "int 1")
        #expect(tagged(PredicateValue(any: true)) == "bool true")
        #expect(tagged(PredicateValue(any: Decimal(1))) == "decimal 1")
    }

    /// Through the REPL, as a user opening a property list meets it: types and JSON output.
    @Test func replOpensPropertyListIntegersAsIntegers() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("flags.plist")
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><array>
            <dict><key>n</key><integer>0</integer><key>r</key><real>1.0</real><key>b</key><true/></dict>
            <dict><key>n</key><integer>1</integer><key>r</key><real>0.0</real><key>b</key><false/></dict>
            </array></plist>
            """.write(to: file, atomically: true, encoding: .utf8)
        let r = try PQLProcess.run([file.path], stdin: Data(".schema\n.format json\nn == 1\nb == YES\n".utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("b  boolean\n  n  integer\n  r  double"), "\(r.stdout)")
        #expect(r.stdout.contains(#"{"b":false,"n":1,"r":0.0}"#), "\(r.stdout)")
        #expect(r.stdout.contains(#"{"b":true,"n":0,"r":1.0}"#), "\(r.stdout)")
    }
}
