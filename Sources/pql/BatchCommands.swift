import ArgumentParser
import Foundation
import PQL
import PQLStore

/// `pql update`: set attributes on every record of an entity that matches a predicate.
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Set attributes on the records of an entity that match a predicate, in an SQLite store or a PostgreSQL database.",
        discussion: """
        Runs one UPDATE in one transaction (all matching records change, or on any error none do) and prints the number of records updated. Each --set value is read as JSON when it is JSON (numbers, true/false, null, "quoted strings", {"$date": "<ISO-8601>"}) and as a plain string otherwise, so --set city=Paris and --set 'city="Paris"' are the same. A to-one relationship is set to the key of the record it links to: its primary key, or the attribute the link refers to (a flight's --set airline=UA, which is the same as --set carrier=UA), or null to unlink. A value no record has as its key is an error, and so is changing a key other records link to: nothing changes.

        A --set value for a text, date or other non-number attribute is always a literal: --set 'title=Jean-Luc' sets that string. For a number attribute, a value that is not JSON cannot be a literal, so it is read as an expression: --set 'price=price * 1.1' is --set-expr 'price=price * 1.1'.

        --set-expr KEY=EXPRESSION computes the value from each record with an expression of the predicate language (price * 1.1, stock - 1, uppercase:(code), 'a string', 42), with the predicate language's meaning: integer overflow is an error and nil stays nil; every expression reads the record as it was before the update. A result must fit its attribute: a whole number fits an integer attribute (stock * 2.0), 25.5 does not, and the error names the attribute and the record.

        STORE may be a PostgreSQL URL, postgres://user:password@host:port/database (or postgresql://): the UPDATE runs on the server, by the same rules; a --set-expr expression with arithmetic or functions of key paths (price * 1.1) is refused there before anything is written.

        The demo is read-only: the examples update a store made from its airports.

        Examples:
          pql query :demo: --entity Airport > airports.jsonl
          pql import places.sqlite airports.jsonl --entity Airport
          pql update places.sqlite --entity Airport \\
            --where "alt > %@" --arg 5000 --set tzone=Mountain
          pql update places.sqlite --entity Airport --where "faa == 'JFK'" \\
            --set name='John F. Kennedy' --set dst=null
          pql update places.sqlite --entity Airport --where "alt < 0" \\
            --set-expr 'alt=alt * 2' --set-expr 'name=uppercase:(name)'
          pql update postgres://me@localhost/flights --entity Airport \\
            --where "faa == 'JFK'" --set name='John F. Kennedy'
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store, or a PostgreSQL URL.", valueName: "store"))
    var store: String

    @Option(help: "The entity to update (may be left out when the store has only one).")
    var entity: String?

    @OptionGroup var selection: RecordSelection

    @Option(name: .customLong("set"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "An attribute (or to-one relationship) and its new value, as JSON or a plain string; repeat for more.",
        valueName: "key=value"))
    var assignments: [String] = []

    @Option(name: .customLong("set-expr"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "An attribute (or to-one relationship) and an expression computing its new value from each record, as in 'price=price * 1.1'; repeat for more.",
        valueName: "key=expression"))
    var expressionAssignments: [String] = []

    func validate() throws {
        try StoreLocation.requireWritable(store)
        guard !assignments.isEmpty || !expressionAssignments.isEmpty else {
            throw ValidationError("give at least one --set KEY=VALUE or --set-expr KEY=EXPRESSION")
        }
        do {
            _ = try Self.parseAssignments(assignments, expressions: expressionAssignments)
        } catch is UserFacingError {
            // An expression that does not parse: run reports it with its caret.
        }
    }

    func run() throws {
        if ServerStore.isURL(store) { return try run(onServer: store) }
        var (set, computed) = try Self.parseAssignments(assignments, expressions: expressionAssignments)
        // Without --entity the store is opened first, to find its only entity.
        let opened = entity == nil ? try StoreLocation.open(store, readOnly: false) : nil
        let entity = try opened.map { try QueryCommand.entity(nil, among: $0.entityNames, in: store) } ?? entity!
        let query = try selection.query(entity)
        let s = try opened ?? StoreLocation.open(store, readOnly: false)
        let guessed = Self.readNumericTextAsExpressions(&set, &computed, entity: entity, model: s.model)
        do throws(StoreError) {
            if computed.isEmpty {
                Output.line(try s.batchUpdate(query, set: set))
            } else {
                // Each guessed expression compiled alone first, so a failure names the --set it came from.
                for (key, text) in guessed.sorted(by: { $0.key < $1.key }) {
                    do throws(StoreError) {
                        _ = try s.sql(for: EntityQuery(query.entity, predicate: .comparison(ComparisonNode(computed[key]!, .notEqual, .constant(.null)))))
                    } catch {
                        throw Self.guessFailed(key: key, text: text, entity: query.entity, error)
                    }
                }
                Output.line(try s.batchUpdate(query, computing: computed.merging(set.mapValues { .constant($0) }) { a, _ in a }))
            }
        } catch {
            throw error.userFacing
        }
    }

    /// A --set text that was read as an expression (see `readNumericTextAsExpressions`) and
    /// does not work as one: the error says so in terms of what the user wrote, with a caret
    /// under the value.
    static func guessFailed(key: String, text: String, entity: String, _ error: StoreError) -> StoreError {
        let argument = "\(key)=\(text)"
        let start = key.utf8.count + 1
        let range = error.range.map { SourceRange(offset: start + $0.offset, length: $0.length, line: 1, column: key.count + 1 + $0.column) }
            ?? SourceRange(offset: start, length: text.utf8.count, line: 1, column: key.count + 2)
        return StoreError(error.kind, "--set \(argument): \(entity).\(key) is a number attribute, and '\(text)' is not a number; read as an expression, \(error.message)",
                          hint: (error.hint.map { $0 + " Or " } ?? "") + "give a number (--set \(key)=4.5), or an expression of \(entity)'s attributes (--set '\(key)=\(key) * 1.1')",
                          source: argument, range: range)
    }

    /// The `--set` literals and the `--set-expr` expressions by key; a key given twice (in
    /// either) is an error, and so is an expression that does not parse (shown with a caret).
    static func parseAssignments(_ assignments: [String], expressions: [String]) throws
        -> (values: [String: PredicateValue], expressions: [String: ExpressionNode])
    {
        let values = try parseAssignments(assignments)
        var out: [String: ExpressionNode] = [:]
        for assignment in expressions {
            guard let eq = assignment.firstIndex(of: "=") else {
                throw ValidationError("--set-expr needs KEY=EXPRESSION, as in --set-expr 'price=price * 1.1'; got: \(assignment)")
            }
            let key = String(assignment[..<eq])
            guard !key.isEmpty else { throw ValidationError("--set-expr needs a key before '=': \(assignment)") }
            guard out[key] == nil, values[key] == nil else { throw ValidationError("--set and --set-expr give '\(key)' more than once") }
            let text = String(assignment[assignment.index(after: eq)...])
            do {
                out[key] = try ExpressionNode.parse(format: text).tree
            } catch {
                throw UserFacingError(text: error.rendered)
            }
        }
        return (values, out)
    }

    /// A `--set` value that is not JSON, for a number attribute, can only have been meant as an
    /// expression (`--set 'price=price * 1.1'`: text never fits a number), so it is read as one
    /// when it parses; text for any other attribute stays a literal (`--set title=Jean-Luc`,
    /// `--set day=2024-01-02`), and text that does not parse keeps today's type error.
    /// Returns the texts so read, by key.
    @discardableResult
    static func readNumericTextAsExpressions(_ set: inout [String: PredicateValue], _ computed: inout [String: ExpressionNode],
                                             entity: String, model: StoreModel) -> [String: String] {
        guard let e = try? model.entity(named: entity) else { return [:] }
        let numeric = Set(model.allAttributes(e).filter { $0.type.isNumeric && $0.type != .boolean }.map(\.name))
        var guessed: [String: String] = [:]
        for (key, value) in set where numeric.contains(key) {
            guard case .string(let text) = value, let node = try? ExpressionNode.parse(format: text).tree else { continue }
            computed[key] = node
            set[key] = nil
            guessed[key] = text
        }
        return guessed
    }

    /// The `--set` values by key: JSON when the text after `=` is JSON, else that text as a string.
    static func parseAssignments(_ assignments: [String]) throws -> [String: PredicateValue] {
        var out: [String: PredicateValue] = [:]
        for assignment in assignments {
            guard let eq = assignment.firstIndex(of: "=") else {
                throw ValidationError("--set needs KEY=VALUE, as in --set 'city=Paris'; got: \(assignment)")
            }
            let key = String(assignment[..<eq])
            guard !key.isEmpty else { throw ValidationError("--set needs a key before '=': \(assignment)") }
            guard out[key] == nil else { throw ValidationError("--set gives '\(key)' more than once") }
            let text = String(assignment[assignment.index(after: eq)...])
            var value = (try? JSONReader.value(from: text)) ?? .string(text)
            // An integer past 64 bits reads as the nearest double; kept as a decimal, it keeps
            // its digits: an integer attribute's error names the number given, and a decimal
            // attribute on PostgreSQL stores it exactly.
            if case .double = value, let exact = exactInteger(text) { value = exact }
            out[key] = value
        }
        return out
    }

    /// `text` as a decimal when it is a JSON integer a decimal holds digit for digit.
    private static func exactInteger(_ text: String) -> PredicateValue? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let d = Decimal(string: text), "\(d)" == text else { return nil }
        return .decimal(d)
    }
}

/// `pql delete`: delete the records of an entity that match a predicate.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the records of an entity that match a predicate, from an SQLite store or a PostgreSQL database.",
        discussion: """
        Deletes in one transaction, applying the delete rules of the entity's relationships (nullify, cascade, deny; in a database PQL did not create, a foreign key's ON DELETE CASCADE and SET NULL, and deny otherwise): all matching records go, or on any error (a deny rule that still has related records, a link with no rule) none do. Prints the number of records deleted. Without --where, every record of the entity is deleted.

        STORE may be a PostgreSQL URL, postgres://user:password@host:port/database (or postgresql://): the DELETE runs on the server, by the same rules.

        The demo is read-only: the examples delete from a store made from its airlines.

        Examples:
          pql query :demo: --entity Airline > airlines.jsonl
          pql import carriers.sqlite airlines.jsonl --entity Airline
          pql delete carriers.sqlite --entity Airline \\
            --where "name ENDSWITH 'Inc.'"
          pql delete carriers.sqlite --entity Airline \\
            --where "carrier == %@" --arg '"UA"'
          pql delete postgres://me@localhost/flights --entity Carrier \\
            --where "name ENDSWITH 'Co.'"
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store, or a PostgreSQL URL.", valueName: "store"))
    var store: String

    @Option(help: "The entity to delete from (may be left out when the store has only one).")
    var entity: String?

    @OptionGroup var selection: RecordSelection

    func validate() throws {
        try StoreLocation.requireWritable(store)
    }

    func run() throws {
        if ServerStore.isURL(store) { return try run(onServer: store) }
        // Without --entity the store is opened first, to find its only entity.
        let opened = entity == nil ? try StoreLocation.open(store, readOnly: false) : nil
        let entity = try opened.map { try QueryCommand.entity(nil, among: $0.entityNames, in: store) } ?? entity!
        let query = try selection.query(entity)
        let s = try opened ?? StoreLocation.open(store, readOnly: false)
        do {
            Output.line(try s.batchDelete(query))
        } catch {
            throw error.userFacing
        }
    }
}

extension StoreLocation {
    /// Refuses `:demo:` for commands that write: the demo is a cache, rebuilt only when PQL changes.
    static func requireWritable(_ path: String) throws {
        if path == demo {
            throw ValidationError("\(demo) is read-only; give a store file of your own (`pql import` makes one)")
        }
    }
}
