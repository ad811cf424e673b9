import ArgumentParser
import Foundation
import PQL
import PQLStore

/// `pql filter`: the elements of a JSON array or JSON Lines file that match a predicate.
struct FilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Filter a JSON array or JSON Lines file with a predicate.",
        discussion: """
        Reads FILE (or standard input; FILE may be a pipe, a FIFO or <(command)) and writes the matching elements in the same shape: a JSON array for an array, one value per line for JSON Lines; --format prints them as a table, box, csv, tsv, json, jsonl or markdown instead. Objects {"$date": "<ISO-8601>"} are dates.

        Examples (the demo's records, as JSON Lines from pql query):
          pql query :demo: --entity Airline | \\
            pql filter "name CONTAINS[c] 'air lines'"
          pql query :demo: --entity Airport | \\
            pql filter --sort alt:desc --limit 3 "tzone BEGINSWITH 'America/'"
          pql query :demo: --entity Airline | \\
            pql filter --indices --arg '"UA"' "carrier == %@"
          pql query :demo: --entity Airport | \\
            pql filter --format markdown "alt > 8000"
        """
    )

    @OptionGroup var values: PredicateValueOptions

    @OptionGroup var limitOptions: LimitOptions

    @Option(name: .customLong("sort"), help: ArgumentHelp("Sort by a key path; add :desc for descending, :ci for case-insensitive (e.g. name:ci:desc).", valueName: "key[:desc]"))
    var sortKeys: [String] = []

    @Option(help: "Skip this many matches (after sorting).")
    var offset: Int = 0

    @Option(help: "Write at most this many matches.")
    var limit: Int?

    @Option(help: ArgumentHelp("How to print the matches (default: the input's own shape, a JSON array or JSON Lines).", valueName: "format"))
    var format: OutputFormat?

    @Flag(help: "Write the 0-based positions of the matches in the input, as one JSON array.")
    var indices = false

    @Argument(help: ArgumentHelp("The predicate format string, or - to read it from standard input.", valueName: "predicate"))
    var predicate: String

    @Argument(help: ArgumentHelp("A JSON array or JSON Lines file; standard input when absent.", valueName: "file"))
    var file: String?

    func validate() throws {
        if offset < 0 { throw ValidationError("--offset must be 0 or more") }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if indices && format != nil { throw ValidationError("--indices prints positions, not records: leave out --format") }
        if predicate == "-" && file == nil { throw ValidationError("the predicate and the data cannot both come from standard input") }
    }

    func run() throws {
        let text = try PredicateSource.read(predicate)
        let (node, map) = try values.parse(text)
        let sort = try sortKeys.map(Self.sortRule)
        let document = try Self.readDocument(file)
        let variables = try values.bindings()
        try values.checkBound(node, text: text, sourceMap: map, variables: variables)
        var query = PredicateQuery(node, sort: sort, offset: offset, limit: limit, variables: variables,
                                   limits: limitOptions.limits)
        query.sourceMap = map
        let matches: [Int]
        do {
            matches = try query.indices(in: document.values, reader: PredicateValue.predicateReader)
        } catch {
            // Where: the element's position in an array, its line in JSON Lines.
            let place = error.elementIndex.map { i in
                document.layout == .lines ? "line \(document.line(of: i))" : "element \(i) of the array (0-based, line \(document.line(of: i)))"
            }
            throw UserFacingError(text: error.userText(at: place))
        }
        var out = ""
        if let format {
            out = Self.render(matches, of: document, as: format)
        } else if indices {
            out = "[" + matches.map(String.init).joined(separator: ",") + "]\n"
        } else if document.layout == .lines {
            for i in matches { out += document.text(of: i); out += "\n" }
        } else if matches.isEmpty {
            out = "[]\n"
        } else {
            out = "[\n" + matches.map { "  " + document.text(of: $0) }.joined(separator: ",\n") + "\n]\n"
        }
        Output.write(out)
    }

    static func sortRule(_ spec: String) throws -> SortRule {
        do { return try SortRule(spec: spec) } catch {
            switch error.kind {
            case .missingKeyPath:
                throw ValidationError("--sort needs a key path, as in --sort name or --sort age:desc")
            case .unknownModifier(let p):
                throw ValidationError("unknown --sort modifier '\(p)' in '\(spec)'; use :asc, :desc, :ci or :localized")
            }
        }
    }

    static func readDocument(_ file: String?) throws -> JSONDocument {
        let data: Data
        if let file {
            // Pipes, FIFOs and process substitution (`<(…)`) are read to their end like files.
            do { data = try InputFile.read(file) } catch { throw error.userFacing }
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        do {
            return try JSONDocument(bytes: [UInt8](data))
        } catch {
            // Well-formed JSON with a {"$date": …} that is no date is not "invalid JSON".
            if error.isAboutAValue {
                throw UserFacingError(text: "error: \(file ?? "standard input") holds a value PQL cannot read: \(error)\nhint: fix it there: \(error.valueHint(otherwise: "write dates in ISO-8601, as in {\"$date\": \"2024-05-01T12:00:00Z\"}"))")
            }
            throw UserFacingError(text: "error: \(file ?? "standard input") is not valid JSON: \(error)\nhint: fix it there: pql reads a JSON array of objects, or JSON Lines (one object per line)")
        }
    }
}
