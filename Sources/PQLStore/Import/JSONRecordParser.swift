import PQL

/// Reads one JSON record, an object whose values are scalars (or `{"$date": …}`), key by key
/// into columns. Keys met for the first time become columns when `adding`, in the order the
/// record's text has them; numbers are read exactly (as ``JSONReader`` reads them).
struct JSONRecordParser {
    private(set) var names: [String] = []
    private var index: [String: Int] = [:]
    let adding: Bool
    /// The record that last set each column, so that a key a record repeats is found.
    private var setBy: [Int] = []
    private var records = 0

    init(columns: [String] = [], adding: Bool) {
        names = columns
        for (i, n) in columns.enumerated() { index[n] = i }
        self.adding = adding
    }

    /// Parses `bytes`, record `number` starting at `line` and `column`, handing each key's
    /// column and value to `set`. A key the record repeats, or one equal to an earlier key as
    /// a Swift string (`é` composed and decomposed), is an error naming both (``JSONKeys``).
    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, number: Int, line: Int, column: Int,
                        _ set: (Int, PredicateValue) -> Void) throws(StoreError) {
        func located(_ e: JSONReadError) -> StoreError {
            let l = line + e.line - 1
            let c = e.line == 1 ? column + e.column - 1 : e.column
            // Numbers the reader refuses to round are well-formed JSON: the fix is not the layout.
            let number = e.message.hasPrefix("the number ") || e.message.hasPrefix("the integer ")
            return StoreError(.importFailed, "JSON line \(l), column \(c): \(e.message)",
                              hint: number ? "write it as a string (in quotes) to import it as text" : JSONRecordReader.hint)
        }
        var r = JSONReader(b: bytes)
        // The reader's errors are placed in the record; they become the file's line and column.
        func read<T>(_ body: (inout JSONReader) throws(JSONReadError) -> T) throws(StoreError) -> T {
            do throws(JSONReadError) { return try body(&r) } catch { throw located(error) }
        }
        func fail(_ message: String) -> StoreError { located(r.fail(message)) }
        r.skipSpace()
        guard r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: "{") else {
            let v = try read { (r) throws(JSONReadError) in try r.parseValue() }
            throw StoreError(.importFailed, "JSON record \(number) is \(v.kindDescription), not an object", hint: JSONRecordReader.hint)
        }
        r.advance(by: 1)
        r.skipSpace()
        records += 1
        if r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: "}") { return }
        while true {
            r.skipSpace()
            guard r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: "\"") else {
                throw fail(r.offset < bytes.count ? "expected a quoted key in an object" : "expected a quoted key in an object, found end of input")
            }
            let keyStart = r.offset
            let key = try read { (r) throws(JSONReadError) in try r.parseString() }
            r.skipSpace()
            guard r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: ":") else { throw fail("expected ':' after an object key") }
            r.advance(by: 1)
            r.skipSpace()
            if r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: "[") {
                throw StoreError(.importFailed, "JSON record \(number): key '\(key)' holds an array, which cannot be a column",
                                 hint: "flatten nested values into keys of their own (e.g. '\(key)_x'), or remove '\(key)'")
            }
            let value = try read { (r) throws(JSONReadError) in try r.parseValue() }
            if case .dictionary = value {
                throw StoreError(.importFailed, "JSON record \(number): key '\(key)' holds \(value.kindDescription), which cannot be a column",
                                 hint: "flatten nested values into keys of their own (e.g. '\(key)_x'), or remove '\(key)'")
            }
            if let c = index[key] {
                if setBy.count < names.count { setBy += Array(repeating: 0, count: names.count - setBy.count) }
                guard setBy[c] != records else {
                    // The record's own spelling of the earlier key, not the column's (another record's).
                    let earlier = Self.earlierSpelling(of: key, in: bytes, before: keyStart)
                    throw StoreError(.importFailed, located(r.fail(JSONKeys.duplicate(earlier, key, in: "JSON record \(number)"), at: keyStart)).message,
                                     hint: JSONKeys.hint)
                }
                setBy[c] = records
                set(c, value)
            } else if adding {
                guard names.count < ImportTable.maxFileColumns else {
                    throw StoreError(.importFailed, "JSON record \(number) brings key '\(key)', beyond the \(ImportTable.maxFileColumns) columns a file can bring (a table has at most \(ImportTable.maxColumns), the store's key column among them)",
                                     hint: "split the records, or drop keys that are not needed")
                }
                index[key] = names.count
                names.append(key)
                setBy.append(records)
                set(names.count - 1, value)
            } else {
                throw StoreError(.importFailed, "JSON record \(number) has the key '\(key)', which the first reading of the file did not",
                                 hint: "the file changed during the import; import it again")
            }
            r.skipSpace()
            guard r.offset < bytes.count else { throw fail("expected ',' or '}' in an object, found end of input") }
            if bytes[r.offset] == UInt8(ascii: ",") { r.advance(by: 1); continue }
            if bytes[r.offset] == UInt8(ascii: "}") { return }
            throw fail("expected ',' or '}' in an object")
        }
    }

    /// The spelling an object's text gives the first key equal to `key`, before `end`.
    private static func earlierSpelling(of key: String, in bytes: UnsafeBufferPointer<UInt8>, before end: Int) -> String {
        var r = JSONReader(b: bytes)
        r.skipSpace()
        r.advance(by: 1)
        // The record parsed this far already: reading its keys again cannot fail.
        do throws(JSONReadError) {
            while r.offset < end {
                r.skipSpace()
                let k = try r.parseString()
                if k == key { return k }
                r.skipSpace()
                r.advance(by: 1)
                r.skipSpace()
                _ = try r.parseValue()
                r.skipSpace()
                r.advance(by: 1)
            }
        } catch {}
        return key
    }
}
