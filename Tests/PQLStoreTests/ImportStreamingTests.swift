import Foundation
import PQL
@testable import PQLStore
import Testing

/// Streaming import (issue 13, items 2, 5, 10 and 11): bounded memory whatever the file's size,
/// the same records however the bytes arrive, ZIP bombs refused, no number rounded, and an
/// import that fails leaving the store and its model as they were.
@Suite struct ImportStreamingTests {
    /// The store error `body` throws, or nil.
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

    private var zipFixtures: URL {
        get throws { try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)).appendingPathComponent("zip") }
    }

    /// Hands out the bytes a few at a time, so every record straddles reads.
    final class TrickleStream: ByteStream {
        private let bytes: [UInt8]
        private var offset = 0
        private let step: Int
        init(_ text: String, step: Int) { bytes = Array(text.utf8); self.step = step }
        override func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(StoreError) -> Int {
            let n = min(step, count, bytes.count - offset)
            for k in 0..<max(0, n) { buffer[k] = bytes[offset + k] }
            offset += max(0, n)
            return max(0, n)
        }
    }

    /// `rows` generated CSV rows of the form `i,name-i`, made as they are read.
    final class GeneratedCSV: ByteStream {
        private var pending: [UInt8] = Array("id,name\n".utf8)
        private var next = 0
        private let rows: Int
        private(set) var produced = 0
        init(rows: Int) { self.rows = rows }
        override func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(StoreError) -> Int {
            while pending.count < count && next < rows {
                pending.append(contentsOf: "\(next),name-\(next)\n".utf8)
                next += 1
            }
            let n = min(count, pending.count)
            for k in 0..<n { buffer[k] = pending[k] }
            pending.removeFirst(n)
            produced += n
            return n
        }
    }

    private func csvRecords(_ stream: ByteStream) throws -> [String] {
        let csv = try CSVReader(stream)
        var out = [csv.header.joined(separator: "|")]
        while try csv.next() {
            out.append("\(csv.line):" + (0..<csv.columnCount).map { csv.string($0) ?? "NULL" }.joined(separator: "|"))
        }
        return out
    }

    private func jsonRecords(_ stream: ByteStream) throws -> [String] {
        let json = JSONRecordReader(stream)
        var out: [String] = []
        while let bytes = try json.next() {
            out.append("\(json.recordNumber)@\(json.recordLine):\(json.recordColumn) " + String(decoding: bytes, as: UTF8.self))
        }
        return out
    }

    // MARK: - The same records however the bytes arrive

    @Test func csvRecordsDoNotDependOnReadBoundaries() throws {
        let inputs = [
            "a,b\nx,y\n",
            "\u{FEFF}a,b\r\n1,\"q\"\"uote\"\r\n\r\n2,\"multi\nline, with comma\"\r\n3,NA\r\n4,\r\n",
            "a,b\r1,2\r\r3,\"\"\"\"\r",
            "h\n\"\"\n\"NA\"\nNA\n\n\n",
            "a,b,c\n,,\n\"\",\"\",\"\"\nlast,row,no-newline",
            "x\n5'10\"\n\"é, ü\"\n",
        ]
        for text in inputs {
            let whole = try csvRecords(DataByteStream(Data(text.utf8)))
            for step in [1, 2, 3, 7] {
                #expect(try csvRecords(TrickleStream(text, step: step)) == whole, "step \(step): \(text.debugDescription)")
            }
        }
        #expect(try csvRecords(DataByteStream(Data("a,b\n1,\"q\"\"uote\"\n".utf8))) == ["a|b", "2:1|q\"uote"])
    }

    @Test func csvErrorsDoNotDependOnReadBoundaries() {
        for text in ["a,b\n1\n", "a,b\n1,2,3\n", "a\n\"open\n\nmore", "a\n\"x\"y\n"] {
            let whole = failure { try csvRecords(DataByteStream(Data(text.utf8))) }?.message
            #expect(whole != nil)
            for step in [1, 2, 5] {
                #expect(failure { try csvRecords(TrickleStream(text, step: step)) }?.message == whole, "step \(step): \(text.debugDescription)")
            }
        }
    }

    @Test func jsonRecordsDoNotDependOnReadBoundaries() throws {
        let inputs = [
            #"[{"a": 1}, {"a": "x\"]}", "b": {"$date": "2013-01-01"}}]"#,
            "{\"a\": 1}\n{\"a\": 2}\r\n\n  {\"a\": \"\\u00e9\\n\"}\n",
            "{\n  \"a\": 1,\n  \"b\": [1, {\"c\": 2}]\n}\n{\n  \"a\": 2\n}\n",
            "\u{FEFF}[\n {\"k\": -1.5e3},\n {\"k\": null}\n]\n",
            "[1, \"two\", true, null]",
            "[]",
            "",
        ]
        for text in inputs {
            let whole = try jsonRecords(DataByteStream(Data(text.utf8)))
            for step in [1, 2, 3, 7] {
                #expect(try jsonRecords(TrickleStream(text, step: step)) == whole, "step \(step): \(text.debugDescription)")
            }
        }
        #expect(try jsonRecords(DataByteStream(Data("{\"a\": 1}\n  {\"a\": 2}\n".utf8))) == ["1@1:1 {\"a\": 1}", "2@2:3 {\"a\": 2}"])
    }

    @Test func jsonStructureErrorsNameTheLine() {
        let cases: [(String, String)] = [
            ("[{\"a\": 1} {\"a\": 2}]", "JSON line 1, column 11: expected ',' or ']' in an array"),
            ("[{\"a\": 1},\n", "JSON line 2, column 1: expected a JSON value, found end of input"),
            ("[{\"a\": 1}] x", "JSON line 1, column 12: unexpected text after the JSON array"),
            ("{\"a\": 1} {\"a\": 2}\n", "JSON line 1, column 10: expected a new line after a JSON value (JSON Lines has one value per line)"),
            ("{\"a\": 1}\n{\"a\": \n", "JSON line 3, column 1: expected a JSON value, found end of input"),
        ]
        for (text, message) in cases {
            #expect(failure { try ImportTable.json(Data(text.utf8)) }?.message == message, "\(text.debugDescription)")
        }
    }

    // MARK: - Bounded memory

    /// Many megabytes through a one-megabyte window: the buffer never grows.
    @Test func csvStreamsThroughAFixedBuffer() throws {
        let stream = GeneratedCSV(rows: 400_000)
        let csv = try CSVReader(stream)
        var rows = 0
        var lastID: String?
        while try csv.next() {
            rows += 1
            lastID = csv.string(0)
        }
        #expect(rows == 400_000)
        #expect(lastID == "399999")
        #expect(stream.produced > 6 * ReadBuffer.chunk)
        #expect(csv.bufferCapacity == ReadBuffer.chunk)
    }

    /// A quote that is never closed would make the rest of the file one field: the record
    /// limit stops it, with the line it started on.
    @Test func recordLimitStopsARunawayRecord() throws {
        let limits = ImportLimits(maxRecordBytes: 100_000)
        let text = "a,b\n1,2\n3,\"never closed" + String(repeating: "xxxxxxxxx\n", count: 100_000)
        let e = failure { try ImportTable.csv(Data(text.utf8), limits: limits) }
        #expect(e?.kind == .importFailed)
        #expect(e?.message == "CSV line 3: a record runs past 100000 bytes without ending")
        #expect(e?.hint?.contains("ImportLimits.maxRecordBytes") == true)
        let json = "[{\"a\": \"" + String(repeating: "y", count: 300_000)
        let j = failure { try ImportTable.json(Data(json.utf8), limits: limits) }
        #expect(j?.message == "JSON line 1, column 2: record 1 runs past 100000 bytes")
        // A short unclosed quote at the end of the file is still reported as such.
        #expect(failure { try ImportTable.csv(Data("a\n\"x\n".utf8)) }?.message == "CSV line 2: a quoted field is never closed")
    }

    // MARK: - ZIP bombs

    /// bomb.zip: 16 MiB of "0,0" lines deflated to 16 KB (1,027-fold).
    @Test func zipBombIsRefusedBeforeInflating() throws {
        let url = try zipFixtures.appendingPathComponent("bomb.zip")
        let source = try ImportSource(contentsOf: url)
        let e = failure { try source.inferColumns() }
        #expect(e?.kind == .importFailed)
        #expect(e?.message == "bomb.zip: bomb.csv: 'bomb.csv' would grow 1,027-fold when unzipped (16,777,220 bytes from 16,322), beyond the 100-fold an import allows")
        #expect(e?.hint?.contains("ImportLimits.maxCompressionRatio") == true)
        // The limits are the caller's to raise.
        let archive = try ZipArchive(path: url.path)
        _ = try archive.stream(archive.entries[0], limits: ImportLimits(maxCompressionRatio: 2000))
        let size = failure { try archive.stream(archive.entries[0], limits: ImportLimits(maxUnzippedBytes: 1 << 20, maxCompressionRatio: 2000)) }
        #expect(size?.message == "'bomb.csv' unzips to 16,777,220 bytes, more than the 1,048,576 an import unzips")
        #expect(size?.hint?.contains("ImportLimits.maxUnzippedBytes") == true)
    }

    /// Small entries are not held to the ratio: a 16 KB CSV of zeros is harmless.
    @Test func smallEntriesMayCompressWell() throws {
        let zip = try ZipArchive(data: Data(contentsOf: zipFixtures.appendingPathComponent("deflated.zip")))
        #expect(throws: Never.self) { try zip.extract("people.csv", limits: ImportLimits(maxCompressionRatio: 2)) }
        #expect(failure { try zip.extract("people.csv", limits: ImportLimits(maxUnzippedBytes: 100)) }?.message
                == "'people.csv' unzips to 4,706 bytes, more than the 100 an import unzips")
    }

    // MARK: - No number is rounded

    @Test func csvColumnsMixingIntegersAndFractionsStayExact() throws {
        // Every integer exact as a double: a double column.
        #expect(ColumnTypeInference.inferType(of: ["9007199254740992", "1.5"]) == .double)
        #expect(ColumnTypeInference.inferType(of: ["-9007199254740992", "1.5"]) == .double)
        // 2^53 + 1 would round: whole numbers stay integers, fractions make text.
        #expect(ColumnTypeInference.inferType(of: ["9007199254740993", "1.0", "2e3"]) == .integer64)
        #expect(ColumnTypeInference.inferType(of: ["9007199254740993", "1.5"]) == .string)
        #expect(ColumnTypeInference.inferType(of: ["9223372036854775807", "-1e300"]) == .string)
        let t = try ImportTable.csv(Data("id,x,y\n9223372036854775807,1.0,1e400\n1,2e3,2\n".utf8))
        #expect(t.types == [.integer64, .double, .string])
        #expect(t.rows == [[.int(.max), 1.0, "1e400"], [1, 2000.0, "2"]])
        let whole = try ImportTable.csv(Data("x\n9223372036854775807\n2.0\n".utf8))
        #expect(whole.types == [.integer64])
        #expect(whole.rows == [[.int(.max)], [2]])
        let text = try ImportTable.csv(Data("x\n9223372036854775807\n2.5\n".utf8))
        #expect(text.rows == [["9223372036854775807"], ["2.5"]])
    }

    @Test func jsonColumnsMixingIntegersAndFractionsStayExact() throws {
        func table(_ lines: [String]) throws -> ImportTable { try ImportTable.json(Data(lines.joined(separator: "\n").utf8)) }
        let small = try table([#"{"x": 1}"#, #"{"x": 2.5}"#])
        #expect(small.types == [.double])
        #expect(small.rows == [[1.0], [2.5]])
        let whole = try table([#"{"x": 9223372036854775807}"#, #"{"x": 2.0}"#])
        #expect(whole.types == [.integer64])
        #expect(whole.rows == [[.int(.max)], [2]])
        let text = try table([#"{"x": 9223372036854775807}"#, #"{"x": 2.5}"#])
        #expect(text.types == [.string])
        #expect(text.rows == [["9223372036854775807"], ["2.5"]])
        // Integers beyond 64 bits are read exactly and kept as text.
        let big = try table([#"{"id": 18446744073709551616}"#, #"{"id": -123456789012345678901234567890}"#])
        #expect(big.types == [.string])
        #expect(big.rows == [["18446744073709551616"], ["-123456789012345678901234567890"]])
    }

    @Test func jsonNumbersOutOfRangeAreErrorsNamingTheLine() {
        let inf = failure { try ImportTable.json(Data("{\"x\": 1}\n{\"y\": 2, \"x\": -1e400}\n".utf8)) }
        #expect(inf?.message == "JSON line 2, column 15: the number -1e400 is beyond the range of a double (±1.8e308)")
        #expect(inf?.hint == "write it as a string (in quotes) to import it as text")
        let digits = String(repeating: "9", count: 40)
        let long = failure { try ImportTable.json(Data("[{\"x\": \(digits)}]".utf8)) }
        #expect(long?.message == "JSON line 1, column 8: the integer \(digits) has more digits than can be kept exactly (38)")
    }

    /// An existing double attribute refuses an integer it would round, naming the row.
    @Test func doubleAttributesRefuseIntegersTheyWouldRound() throws {
        let store = try PredicateStore.inMemory(StoreModel([ModelEntity("M", attributes: [ModelAttribute("x", .double)])]))
        try store.insert("M", ["x": .int(1 << 53)])
        let e = failure { try store.insert("M", ["x": .int(Int64.max)]) }
        #expect(e?.kind == .invalidValue)
        #expect(e?.message == "M.x is a double attribute; the integer 9223372036854775807 has no exact double (doubles hold integers exactly up to 2^53)")
        let file = failure { try store.importFile(ImportSource(json: Data("{\"x\": 1.5}\n{\"x\": 9223372036854775807}\n".utf8)), into: "M") }
        #expect(file?.message.hasPrefix("JSON record 2 (line 2): M.x is a double attribute; the integer 9223372036854775807") == true, "\(String(describing: file))")
        #expect(try store.count(EntityQuery("M")) == 1)
    }

    // MARK: - All or nothing

    /// A failure after the entity was made (text that is not UTF-8 is found while inserting)
    /// leaves no table, no rows and no entity in the model, in memory or in the file.
    @Test func failedImportLeavesTheStoreAsItWas() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        let store = try PredicateStore(path: path, model: StoreModel([ModelEntity("Keep", attributes: [ModelAttribute("v", .string)])]))
        try store.insert("Keep", ["v": "kept"])
        var bytes = Array("name,n\nann,1\n".utf8)
        bytes += [0xFF, 0xFE] + Array(",2\n".utf8)
        let e = failure { try store.importFile(ImportSource(csv: Data(bytes)), into: "Broken") }
        #expect(e?.message == "CSV line 3, column 'name': the text is not valid UTF-8")
        #expect(store.model.entities.map(\.name) == ["Keep"])
        let reopened = try PredicateStore(path: path)
        #expect(reopened.model.entities.map(\.name) == ["Keep"])
        #expect(try reopened.inferModel().entities.map(\.name) == ["Keep"])
        #expect(failure { try reopened.count(EntityQuery("Broken")) }?.kind == .unknownEntity)
        // The same file imports once fixed; importTable behaves alike.
        #expect(try store.importFile(ImportSource(csv: Data("name,n\nann,1\nbo,2\n".utf8)), into: "Fixed") == 2)
        let table = ImportTable(columns: ["v"], types: [.integer64], optional: [false], rows: [[1], ["x"]])
        #expect(failure { try store.importTable(table, into: "T") }?.message.hasPrefix("row 2: T.v is an integer64 attribute") == true)
        #expect(store.model.entities.map(\.name) == ["Keep", "Fixed"])
    }

    /// Entities added inside a transaction that rolls back leave the model with it.
    @Test func rolledBackTransactionRestoresTheModel() throws {
        let store = try PredicateStore.inMemory(StoreModel([]))
        let e = failure {
            try store.transaction { () throws(StoreError) in
                try store.importTable(ImportTable(columns: ["v"], types: [.string], optional: [false], rows: [["a"]]), into: "Inner")
                throw StoreError(.constraint, "stop")
            }
        }
        #expect(e?.message == "stop")
        #expect(store.model.entities.isEmpty)
        #expect(failure { try store.count(EntityQuery("Inner")) }?.kind == .unknownEntity)
    }
}
