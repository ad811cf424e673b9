import Foundation
import PQL
import PQLStore
import Testing

/// The JSON and Xcode model loaders: what they read, what they write, and how they refuse.
@Suite struct ModelLoaderTests {
    // MARK: Helpers

    static func fixture(_ path: String) throws -> URL {
        let root = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return root.appendingPathComponent(path)
    }

    /// The error a load throws, or nil when it succeeds.
    static func failure(_ load: () throws(StoreError) -> StoreModel) -> StoreError? {
        do { _ = try load(); return nil } catch { return error }
    }

    static func json(_ text: String) -> StoreError? {
        failure { () throws(StoreError) in try StoreModel(json: Data(text.utf8)) }
    }

    /// A fresh directory under the temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-loader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Writes `text` as `Test.xcdatamodel/contents` and loads it.
    static func xcode(_ text: String) throws -> Result<StoreModel, StoreError> {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = dir.appendingPathComponent("Test.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: model.appendingPathComponent("contents"))
        do { return .success(try StoreModel(xcdatamodel: model)) } catch { return .failure(error) }
    }

    static let header = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        """

    /// A model document whose body starts on line 3.
    static func document(_ body: String) -> String { header + "\n" + body + "\n</model>\n" }

    static func attribute(_ model: StoreModel, _ entity: String, _ name: String) throws -> ModelAttribute {
        try #require(try model.entity(named: entity).attributes.first { $0.name == name })
    }

    static func relationship(_ model: StoreModel, _ entity: String, _ name: String) throws -> ModelRelationship {
        try #require(try model.entity(named: entity).relationships.first { $0.name == name })
    }

    // MARK: The Xcode fixture

    @Test func xcodeFixtureEntitiesAndInheritance() throws {
        let model = try StoreModel(xcdatamodel: Self.fixture("Airline.xcdatamodeld"))
        #expect(model.entities.map(\.name) == ["Airline", "Airport", "Flight", "Place", "Plane"])
        let place = try model.entity(named: "Place")
        #expect(place.isAbstract)
        #expect(place.parent == nil)
        let airport = try model.entity(named: "Airport")
        #expect(!airport.isAbstract)
        #expect(airport.parent == "Place")
        #expect(airport.attributes.map(\.name) == ["alt", "dst", "tz"])
        #expect(place.uniqueness == [["code"]])
        #expect(try model.entity(named: "Airline").uniqueness == [["carrier"]])
        #expect(try model.entity(named: "Plane").uniqueness == [["tailnum"]])
        #expect(try model.entity(named: "Flight").indexes == [["dep_delay"], ["year", "month", "day"]])
        // Transient attributes and fetched properties have no column, so they are left out.
        let flight = try model.entity(named: "Flight")
        #expect(!flight.attributes.contains { $0.name == "isLate" })
        #expect(try model.entity(named: "Plane").attributes.map(\.name) == ["manufacturer", "photo", "seats", "speed", "tailnum", "year"])
        #expect(flight.table == "Flight" && flight.primaryKey == "Z_PK")
    }

    @Test func xcodeFixtureAttributeTypesOptionalityAndDefaults() throws {
        let model = try StoreModel(xcdatamodel: Self.fixture("Airline.xcdatamodeld"))
        let types = try model.entity(named: "Flight").attributes.map { "\($0.name):\($0.type.rawValue)" }
        #expect(types == ["arr_delay:integer64", "cancelled:boolean", "day:integer16", "dep_delay:integer64", "distance:double",
                          "flight:integer32", "id:uuid", "month:integer16", "time_hour:date", "year:integer16"])
        #expect(try Self.attribute(model, "Airline", "website").type == .uri)
        #expect(try Self.attribute(model, "Plane", "photo").type == .binary)
        #expect(try Self.attribute(model, "Plane", "speed").type == .decimal)
        #expect(try Self.attribute(model, "Airport", "tz").type == .float)

        // Absent optional="YES" means required, as in Xcode.
        #expect(try !Self.attribute(model, "Airline", "carrier").isOptional)
        #expect(try Self.attribute(model, "Airline", "name").isOptional)
        #expect(try !Self.attribute(model, "Flight", "cancelled").isOptional)

        // Defaults are converted to the attribute's type (case and value both checked:
        // PredicateValue's == would equate .int(0) with .bool(false)).
        let year = try Self.attribute(model, "Flight", "year").defaultValue
        guard case .int(2013)? = year else { Issue.record("year default \(String(describing: year))"); return }
        let cancelled = try Self.attribute(model, "Flight", "cancelled").defaultValue
        guard case .bool(false)? = cancelled else { Issue.record("cancelled default \(String(describing: cancelled))"); return }
        let distance = try Self.attribute(model, "Flight", "distance").defaultValue
        guard case .double(0)? = distance else { Issue.record("distance default \(String(describing: distance))"); return }
        let tz = try Self.attribute(model, "Airport", "tz").defaultValue
        guard case .double(-5)? = tz else { Issue.record("tz default \(String(describing: tz))"); return }
        let speed = try Self.attribute(model, "Plane", "speed").defaultValue
        guard case .decimal(let d)? = speed, d == 0 else { Issue.record("speed default \(String(describing: speed))"); return }
        let dst = try Self.attribute(model, "Airport", "dst").defaultValue
        #expect(dst == .string("A"))
        let timeHour = try Self.attribute(model, "Flight", "time_hour").defaultValue
        guard case .date(let date)? = timeHour else { Issue.record("time_hour default \(String(describing: timeHour))"); return }
        #expect(date == ISO8601.date(from: "2013-01-01T00:00:00Z"))
        #expect(try Self.attribute(model, "Flight", "dep_delay").defaultValue == nil)
        #expect(try Self.attribute(model, "Flight", "id").defaultValue == nil)
    }

    @Test func xcodeFixtureRelationshipsAndTemplates() throws {
        let model = try StoreModel(xcdatamodel: Self.fixture("Airline.xcdatamodeld"))
        let flights = try Self.relationship(model, "Airline", "flights")
        #expect(flights.isToMany && flights.destination == "Flight" && flights.inverse == "airline" && flights.deleteRule == .cascade)
        let airline = try Self.relationship(model, "Flight", "airline")
        #expect(!airline.isToMany && airline.destination == "Airline" && airline.inverse == "flights" && airline.deleteRule == .nullify)
        #expect(airline.isOptional)
        #expect(try Self.relationship(model, "Flight", "plane").deleteRule == .noAction)
        #expect(try Self.relationship(model, "Airport", "departures").deleteRule == .deny)
        #expect(try Self.relationship(model, "Airport", "departures").inverse == "origin")
        #expect(try model.entity(named: "Flight").relationships.map(\.name) == ["airline", "destination", "origin", "plane"])

        // The fetched property's nested <fetchRequest> is not a model template.
        #expect(model.templates.map(\.name) == ["AirlineByCarrier", "LateFlights"])
        let late = try model.template(named: "LateFlights")
        #expect(late.entity == "Flight")
        #expect(late.predicate == "dep_delay > $minutes AND cancelled == NO")   // &gt; decoded
        #expect(late.limit == 10)
        #expect(late.sort.isEmpty)
        #expect(try model.template(named: "AirlineByCarrier").limit == nil)
    }

    @Test func xcodeModelIsFoundFromEveryEntryPoint() throws {
        let bundle = try StoreModel(xcdatamodel: Self.fixture("Airline.xcdatamodeld"))
        let version = try StoreModel(xcdatamodel: Self.fixture("Airline.xcdatamodeld/Airline.xcdatamodel"))
        let contents = try StoreModel(xcdatamodel: Self.fixture("Airline.xcdatamodeld/Airline.xcdatamodel/contents"))
        let dispatched = try StoreModel(contentsOf: Self.fixture("Airline.xcdatamodeld"))
        let dispatchedContents = try StoreModel(contentsOf: Self.fixture("Airline.xcdatamodeld/Airline.xcdatamodel/contents"))
        #expect(bundle == version)
        #expect(bundle == contents)
        #expect(bundle == dispatched)
        #expect(bundle == dispatchedContents)
    }

    @Test func jsonFixtureMatchesTheXcodeModelAndItsOutput() throws {
        let xcode = try StoreModel(xcdatamodel: Self.fixture("Airline.xcdatamodeld"))
        let json = try StoreModel(contentsOf: Self.fixture("model.json"))
        #expect(json == xcode)
        // The writer's exact format: sorted keys, two-space indentation, name lists on one line.
        let written = String(decoding: xcode.jsonData(), as: UTF8.self)
        let expected = try String(contentsOf: Self.fixture("model.json"), encoding: .utf8)
        #expect(written == expected)
    }

    // MARK: JSON round trips

    static func everything() throws -> StoreModel {
        let date = Date(timeIntervalSinceReferenceDate: 400_000_000.25)
        let fare = try #require(Decimal(string: "1234567890.123456789"))
        return try StoreModel([
                ModelEntity("Event", attributes: [
                    ModelAttribute("when", .date, isOptional: false, defaultValue: .date(date), isIndexed: true),
                    ModelAttribute("note", .string, defaultValue: .string("tab\there \"quoted\" \\ é ✈︎ \u{1}"), column: "NOTE_TEXT"),
                ], isAbstract: true, table: "events", primaryKey: "event_id"),
                ModelEntity("Departure", attributes: [
                    ModelAttribute("gate", .integer16, defaultValue: .int(-32768)),
                    ModelAttribute("seq", .integer32, defaultValue: .int(2_147_483_647), isUnique: true),
                    ModelAttribute("big", .integer64, defaultValue: .int(Int64.max)),
                    ModelAttribute("ratio", .double, defaultValue: .double(0.1)),
                    ModelAttribute("huge", .double, defaultValue: .double(1e300)),
                    ModelAttribute("nothing", .double, defaultValue: .double(.infinity)),
                    ModelAttribute("weight", .float, defaultValue: .double(-2.5)),
                    ModelAttribute("fare", .decimal, defaultValue: .decimal(fare)),
                    ModelAttribute("boarded", .boolean, isOptional: false, defaultValue: .bool(true)),
                    ModelAttribute("blob", .binary, defaultValue: .data(Data([0, 1, 2, 254, 255]))),
                    ModelAttribute("token", .uuid, defaultValue: .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
                    ModelAttribute("link", .uri, defaultValue: .string("https://example.com/a?b=c&d=e")),
                ], relationships: [
                    ModelRelationship("carrier", to: "Carrier", inverse: "departures", deleteRule: .deny, isOptional: false,
                                      foreignKeyColumn: "carrier_code", referencedColumn: "code"),
                ], parent: "Event", indexes: [["gate", "seq"]], uniqueness: [["seq", "big"], ["token"]]),
                ModelEntity("Carrier", attributes: [ModelAttribute("code", .string, isOptional: false, isUnique: true)],
                            relationships: [ModelRelationship("departures", toMany: "Departure", inverse: "carrier", deleteRule: .cascade)]),
            ], templates: [
                FetchTemplate(name: "Busy", entity: "Departure", predicate: "gate == $gate AND note CONTAINS[cd] \"x\"",
                              sort: [SortRule("when", ascending: false), SortRule("note", comparison: .caseInsensitive),
                                     SortRule("carrier.code", ascending: false, comparison: .localized)],
                              limit: 25),
                FetchTemplate(name: "All", entity: "Carrier", predicate: "TRUEPREDICATE"),
            ])
    }

    @Test func roundTripKeepsEveryField() throws {
        let model = try Self.everything()
        let data = model.jsonData()
        let back = try StoreModel(json: data)
        #expect(back == model)
        // Writing again gives the same bytes: the format is stable.
        #expect(back.jsonData() == data)
        // Equality of PredicateValue is loose across numeric kinds; the kinds must survive too.
        let departure = try back.entity(named: "Departure")
        let kinds = departure.attributes.map { a -> String in
            switch a.defaultValue {
            case .int?: return "int"
            case .double?: return "double"
            case .decimal?: return "decimal"
            case .bool?: return "bool"
            case .data?: return "data"
            case .string?: return "string"
            default: return "other"
            }
        }
        #expect(kinds == ["int", "int", "int", "double", "double", "double", "double", "decimal", "bool", "data", "string", "string"])
        let fare = try Self.attribute(back, "Departure", "fare").defaultValue
        #expect(fare == .decimal(try #require(Decimal(string: "1234567890.123456789"))))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""fare""#) && text.contains(#""default": "1234567890.123456789""#))
        #expect(text.contains(#""sort": ["when:desc", "note:ci", "carrier.code:desc:localized"]"#))
        #expect(text.contains(#""table": "events""#) && text.contains(#""primaryKey": "event_id""#))
        #expect(text.contains(#""foreignKey": "carrier_code""#) && text.contains(#""references": "code""#))
        #expect(text.contains(#""default": "Infinity""#))
    }

    @Test func roundTripOfTheXcodeFixture() throws {
        let model = try StoreModel(xcdatamodel: Self.fixture("Airline.xcdatamodeld"))
        #expect(try StoreModel(json: model.jsonData()) == model)
    }

    @Test func emptyModelRoundTrips() throws {
        let empty = try StoreModel([])
        #expect(String(decoding: empty.jsonData(), as: UTF8.self) == "{\n  \"entities\": [],\n  \"templates\": []\n}\n")
        #expect(try StoreModel(json: empty.jsonData()) == empty)
    }

    // MARK: JSON conveniences

    @Test func jsonAcceptsAliasesDatesDecimalsAndSortOptions() throws {
        let model = try StoreModel(json: Data(#"""
            {"entities": [{"name": "T", "attributes": [
                {"name": "a", "type": "Integer 64", "default": 7},
                {"name": "b", "type": "int"},
                {"name": "c", "type": "TEXT"},
                {"name": "d", "type": "date", "default": "2024-05-01T12:30:00Z"},
                {"name": "e", "type": "date", "default": {"$date": "2024-05-01"}},
                {"name": "f", "type": "decimal", "default": "12.50"},
                {"name": "g", "type": "double", "default": 3},
                {"name": "h", "type": "boolean", "default": 1},
                {"name": "i", "type": "binary", "default": "AAEC"},
                {"name": "j", "type": "string", "default": null}
            ]}],
            "templates": [{"name": "q", "entity": "T", "sort": ["a", "b:desc", "c:ci:desc", "c:localized", "a:asc:literal"]}]}
            """#.utf8))
        let t = try model.entity(named: "T")
        #expect(t.attributes.map(\.type) == [.integer64, .integer64, .string, .date, .date, .decimal, .double, .boolean, .binary, .string])
        #expect(t.attributes.allSatisfy { $0.isOptional })
        let d = t.attributes[3].defaultValue, e = t.attributes[4].defaultValue
        guard case .date(let dd)? = d, case .date(let ed)? = e else { Issue.record("dates: \(String(describing: d)), \(String(describing: e))"); return }
        #expect(dd == ISO8601.date(from: "2024-05-01T12:30:00Z"))
        #expect(ed == ISO8601.date(from: "2024-05-01T00:00:00Z"))
        guard case .decimal(let f)? = t.attributes[5].defaultValue else { Issue.record("decimal"); return }
        #expect(f == Decimal(string: "12.5"))
        guard case .double(3)? = t.attributes[6].defaultValue else { Issue.record("double"); return }
        guard case .bool(true)? = t.attributes[7].defaultValue else { Issue.record("bool"); return }
        #expect(t.attributes[8].defaultValue == .data(Data([0, 1, 2])))
        #expect(t.attributes[9].defaultValue == nil)
        let template = try model.template(named: "q")
        #expect(template.predicate == "TRUEPREDICATE")
        #expect(template.sort == [SortRule("a"), SortRule("b", ascending: false), SortRule("c", ascending: false, comparison: .caseInsensitive),
                                  SortRule("c", comparison: .localized), SortRule("a")])
    }

    @Test func jsonValidationErrorsPointAtTheFilePlace() throws {
        let e = try #require(Self.json(#"""
            {"entities": [{"name": "A"}, {"name": "B", "relationships": [{"name": "a", "destination": "Z"}]}]}
            """#))
        #expect(e.kind == .invalidModel)
        #expect(e.message.contains("unknown entity 'Z'"))
        #expect(e.message.contains("(entities[1].relationships[0])"))
    }

    @Test func contentsOfPrefixesTheFileNameAndRejectsOtherFiles() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("broken.json")
        try Data(#"{"entities": [{"name": "A", "abstrct": true}]}"#.utf8).write(to: bad)
        let e = try #require(Self.failure { () throws(StoreError) in try StoreModel(contentsOf: bad) })
        #expect(e.kind == .modelFile)
        #expect(e.message == "broken.json: entities[0] (entity A): unknown key 'abstrct'")
        #expect(e.hint?.contains("did you mean 'abstract'?") == true)

        let other = dir.appendingPathComponent("model.yaml")
        try Data("entities: []".utf8).write(to: other)
        let e2 = try #require(Self.failure { () throws(StoreError) in try StoreModel(contentsOf: other) })
        #expect(e2.kind == .modelFile && e2.message.contains("is not a model file"))

        let missing = dir.appendingPathComponent("absent.json")
        let e3 = try #require(Self.failure { () throws(StoreError) in try StoreModel(contentsOf: missing) })
        #expect(e3.kind == .modelFile && e3.message.contains("does not exist"))

        let missingModel = dir.appendingPathComponent("Absent.xcdatamodeld")
        let e4 = try #require(Self.failure { () throws(StoreError) in try StoreModel(contentsOf: missingModel) })
        #expect(e4.kind == .modelFile && e4.message.contains("does not exist"))
    }

    // MARK: Xcode versions

    @Test func newestVersionIsReadWithoutCurrentVersionMarker() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = dir.appendingPathComponent("M.xcdatamodeld")
        for (version, entity) in [("M", "One"), ("M 2", "Two"), ("M 10", "Ten")] {
            let v = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: v, withIntermediateDirectories: true)
            try Data(Self.document(#"<entity name="\#(entity)" syncable="YES"/>"#).utf8).write(to: v.appendingPathComponent("contents"))
        }
        #expect(try StoreModel(xcdatamodel: bundle).entities.map(\.name) == ["Ten"])

        // .xccurrentversion wins over the numbering.
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>_XCCurrentVersionName</key>
            \t<string>M 2.xcdatamodel</string>
            </dict>
            </plist>
            """
        try Data(plist.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        #expect(try StoreModel(xcdatamodel: bundle).entities.map(\.name) == ["Two"])

        try Data(plist.replacingOccurrences(of: "M 2.", with: "M 3.").utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let e = try #require(Self.failure { () throws(StoreError) in try StoreModel(xcdatamodel: bundle) })
        #expect(e.kind == .modelFile && e.message.contains("names version 'M 3.xcdatamodel', which the bundle lacks"))
        #expect(e.hint?.contains("M 10.xcdatamodel") == true)

        try Data("<plist><dict></dict></plist>".utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let e2 = try #require(Self.failure { () throws(StoreError) in try StoreModel(xcdatamodel: bundle) })
        #expect(e2.kind == .modelFile && e2.message.contains("does not name the current version"))
    }

    @Test func emptyBundleAndVersionWithoutContentsAreErrors() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = dir.appendingPathComponent("Empty.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let e = try #require(Self.failure { () throws(StoreError) in try StoreModel(xcdatamodel: bundle) })
        #expect(e.kind == .modelFile && e.message.contains("holds no .xcdatamodel"))
        let version = bundle.appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let e2 = try #require(Self.failure { () throws(StoreError) in try StoreModel(xcdatamodel: bundle) })
        #expect(e2.kind == .modelFile && e2.message.contains("has no 'contents' file"))
    }

    // MARK: The XML reader

    @Test func xmlReaderHandlesCommentsEntitiesAndReferences() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <!-- saved by hand -->
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <!-- an entity <with> markup-like text in a comment -->
                <entity name="Note" syncable="YES">
                    <attribute name="text" optional="YES" attributeType="String" defaultValueString="a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#65;&#x42;&#x1F600;"/>
                    <attribute name='single' optional='YES' attributeType='String'   />
                    <userInfo><entry key="k" value="v"/></userInfo>
                </entity>
                <fetchRequest name="Q" entity="Note" predicateString="text ==[c] &quot;x&quot;&#10;OR text BEGINSWITH 'y'"/>
                <configuration name="Default"><memberEntity name="Note"/></configuration>
            </model>
            <!-- trailing comment -->

            """
        let model = try Self.xcode(text).get()
        let note = try model.entity(named: "Note")
        #expect(note.attributes.map(\.name) == ["text", "single"])
        #expect(note.attributes[0].defaultValue == .string("a <b> & \"c\" 'd' AB😀"))
        #expect(try model.template(named: "Q").predicate == "text ==[c] \"x\"\nOR text BEGINSWITH 'y'")
    }

    @Test func indexedAttributesAndCompoundIndexesOfOlderXcode() throws {
        let model = try Self.xcode(Self.document("""
            <entity name="E" syncable="YES">
                <attribute name="a" optional="YES" indexed="YES" attributeType="String"/>
                <attribute name="b" optional="YES" attributeType="Integer 32" defaultValueString="12"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="a"/>
                        <index value="b"/>
                    </compoundIndex>
                </compoundIndexes>
            </entity>
            """)).get()
        let e = try model.entity(named: "E")
        #expect(e.attributes[0].isIndexed && !e.attributes[1].isIndexed)
        #expect(e.indexes == [["a", "b"]])
    }

    // MARK: Malformed input

    struct Bad: CustomTestStringConvertible, Sendable {
        let label: String
        let input: String
        let kind: StoreError.Kind
        /// Must occur in the message.
        let message: String
        /// Must occur in the hint, when given.
        var hint: String? = nil
        var testDescription: String { label }
    }

    static let badJSON: [Bad] = [
        Bad(label: "truncated JSON", input: #"{"entities": ["#, kind: .modelFile, message: "the model is not valid JSON: line 1"),
        Bad(label: "trailing text", input: #"{"entities": []} x"#, kind: .modelFile, message: "unexpected text after the JSON value"),
        Bad(label: "top level array", input: "[]", kind: .modelFile, message: "model: expected a JSON object, found an array"),
        Bad(label: "no entities", input: "{}", kind: .modelFile, message: "has no \"entities\""),
        Bad(label: "misspelled top key", input: #"{"entites": []}"#, kind: .modelFile, message: "unknown key 'entites'", hint: "did you mean 'entities'?"),
        Bad(label: "entities not array", input: #"{"entities": {}}"#, kind: .modelFile, message: "entities (model): expected an array, found a dictionary"),
        Bad(label: "entity without name", input: #"{"entities": [{"attributes": []}]}"#, kind: .modelFile, message: "entities[0] (entity): has no \"name\""),
        Bad(label: "empty entity name", input: #"{"entities": [{"name": ""}]}"#, kind: .modelFile, message: "the name is empty"),
        Bad(label: "numeric entity name", input: #"{"entities": [{"name": 5}]}"#, kind: .modelFile, message: "entities[0].name (entity): expected a string, found 5"),
        Bad(label: "unknown type", input: #"{"entities": [{"name": "Flight", "attributes": [{"name": "dep_delay", "type": "integr64"}]}]}"#,
            kind: .modelFile, message: "entities[0].attributes[0].type (attribute Flight.dep_delay): unknown attribute type 'integr64'",
            hint: "did you mean 'integer64'?"),
        Bad(label: "missing type", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x"}]}]}"#,
            kind: .modelFile, message: "(attribute F.x): has no \"type\"", hint: "integer64"),
        Bad(label: "misspelled attribute key", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "string", "optinal": false}]}]}"#,
            kind: .modelFile, message: "unknown key 'optinal'", hint: "did you mean 'optional'?"),
        Bad(label: "optional not a boolean", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "string", "optional": "no"}]}]}"#,
            kind: .modelFile, message: "entities[0].attributes[0].optional (attribute F.x): expected true or false"),
        Bad(label: "integer default of wrong kind", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "integer64", "default": "five"}]}]}"#,
            kind: .modelFile, message: "does not fit type integer64: expected an integer"),
        Bad(label: "integer16 default out of range", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "integer16", "default": 70000}]}]}"#,
            kind: .modelFile, message: "70000 is out of range for integer16"),
        Bad(label: "date default not ISO", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "date", "default": "yesterday"}]}]}"#,
            kind: .modelFile, message: "'yesterday' is not an ISO-8601 date", hint: "2024-05-01T12:00:00Z"),
        Bad(label: "bad $date object", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "date", "default": {"$date": "soon"}}]}]}"#,
            kind: .modelFile, message: "{\"$date\": …} object needs an ISO-8601 date string"),
        Bad(label: "boolean default as string", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "boolean", "default": "true"}]}]}"#,
            kind: .modelFile, message: "expected true or false"),
        Bad(label: "bad UUID default", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "uuid", "default": "not-a-uuid"}]}]}"#,
            kind: .modelFile, message: "expected a UUID string"),
        Bad(label: "bad decimal default", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "decimal", "default": "12abc"}]}]}"#,
            kind: .modelFile, message: "'12abc' is not a decimal number"),
        Bad(label: "bad base64 default", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "binary", "default": "%%%"}]}]}"#,
            kind: .modelFile, message: "expected base64-encoded data"),
        Bad(label: "relationship without destination", input: #"{"entities": [{"name": "F", "relationships": [{"name": "airline"}]}]}"#,
            kind: .modelFile, message: "entities[0].relationships[0] (relationship F.airline): has no \"destination\""),
        Bad(label: "unknown delete rule", input: #"{"entities": [{"name": "F", "relationships": [{"name": "r", "destination": "F", "deleteRule": "cascde"}]}]}"#,
            kind: .modelFile, message: "unknown delete rule 'cascde'", hint: "did you mean 'cascade'?"),
        Bad(label: "destination not in the model", input: #"{"entities": [{"name": "Flight", "relationships": [{"name": "airline", "destination": "Airlin"}]}]}"#,
            kind: .invalidModel, message: "relationship Flight.airline leads to an unknown entity 'Airlin' (entities[0].relationships[0])"),
        Bad(label: "to-many without inverse", input: #"{"entities": [{"name": "A", "relationships": [{"name": "fs", "destination": "F", "toMany": true}]}, {"name": "F"}]}"#,
            kind: .invalidModel, message: "to-many relationship A.fs has no inverse to-one on F"),
        Bad(label: "inverse the destination lacks", input: #"{"entities": [{"name": "A"}, {"name": "F", "relationships": [{"name": "a", "destination": "A", "inverse": "flights"}]}]}"#,
            kind: .invalidModel, message: "names an inverse 'flights' that A lacks (entities[1].relationships[0])"),
        Bad(label: "duplicate attribute", input: #"{"entities": [{"name": "F", "attributes": [{"name": "x", "type": "string"}, {"name": "x", "type": "int"}]}]}"#,
            kind: .invalidModel, message: "entity 'F' declares 'x' twice (entities[0].attributes[1])"),
        Bad(label: "duplicate entity", input: #"{"entities": [{"name": "F"}, {"name": "F"}]}"#,
            kind: .invalidModel, message: "entity 'F' is declared twice (entities[1])"),
        Bad(label: "unknown parent", input: #"{"entities": [{"name": "F", "parent": "Evnt"}]}"#,
            kind: .invalidModel, message: "names an unknown parent 'Evnt'"),
        Bad(label: "index on an unknown key", input: #"{"entities": [{"name": "F", "indexes": [["nope"]]}]}"#,
            kind: .invalidModel, message: "names an unknown key 'nope' (entities[0])"),
        Bad(label: "index not a list of lists", input: #"{"entities": [{"name": "F", "indexes": ["a"]}]}"#,
            kind: .modelFile, message: "entities[0].indexes[0] (entity F): expected a non-empty array of attribute names"),
        Bad(label: "template predicate does not parse", input: #"{"entities": [{"name": "F"}], "templates": [{"name": "Late", "entity": "F", "predicate": "dep_delay >"}]}"#,
            kind: .modelFile, message: "templates[0].predicate (template Late): the predicate does not parse"),
        Bad(label: "template on unknown entity", input: #"{"entities": [{"name": "F"}], "templates": [{"name": "Late", "entity": "G"}]}"#,
            kind: .invalidModel, message: "fetch template 'Late' names an unknown entity 'G' (templates[0])"),
        Bad(label: "template without entity", input: #"{"entities": [], "templates": [{"name": "Late"}]}"#,
            kind: .modelFile, message: "templates[0] (template Late): has no \"entity\""),
        Bad(label: "unknown sort option", input: #"{"entities": [{"name": "F"}], "templates": [{"name": "T", "entity": "F", "sort": ["x:dsc"]}]}"#,
            kind: .modelFile, message: "templates[0].sort[0] (template T): unknown sort option 'dsc'", hint: "'desc'"),
        Bad(label: "sort without key", input: #"{"entities": [{"name": "F"}], "templates": [{"name": "T", "entity": "F", "sort": [":desc"]}]}"#,
            kind: .modelFile, message: "has no valid key path"),
        Bad(label: "negative limit", input: #"{"entities": [{"name": "F"}], "templates": [{"name": "T", "entity": "F", "limit": -1}]}"#,
            kind: .modelFile, message: "templates[0].limit (template T): expected a non-negative integer, found -1"),
        Bad(label: "misspelled template key", input: #"{"entities": [{"name": "F"}], "templates": [{"name": "T", "entity": "F", "limt": 3}]}"#,
            kind: .modelFile, message: "unknown key 'limt'", hint: "did you mean 'limit'?"),
    ]

    @Test(arguments: badJSON)
    func malformedJSON(_ bad: Bad) throws {
        let e = try #require(Self.json(bad.input), "\(bad.label) was accepted")
        #expect(e.kind == bad.kind, "\(e)")
        #expect(e.message.contains(bad.message), "message: \(e.message)")
        if let hint = bad.hint { #expect(e.hint?.contains(hint) == true, "hint: \(e.hint ?? "none")") }
    }

    /// Bodies start on line 3 of the document (after the XML declaration and <model>).
    static let badXcode: [Bad] = [
        Bad(label: "not XML", input: "hello", kind: .modelFile, message: "Test.xcdatamodel/contents, line 1: expected '<' to open the root element"),
        Bad(label: "empty file", input: "", kind: .modelFile, message: "line 1: the file holds no XML element"),
        Bad(label: "unterminated tag", input: header + "\n<entity name=\"A\"", kind: .modelFile, message: "line 3: unterminated tag <entity>"),
        Bad(label: "tag cut by another tag", input: document("<entity name=\"A\"\n<attribute name=\"x\"/>"), kind: .modelFile,
            message: "line 4: unterminated tag <entity> (opened on line 3): found '<' before its '>'"),
        Bad(label: "mismatched closing tag", input: document("<entity name=\"A\">\n</entiti>"), kind: .modelFile,
            message: "line 4: closing tag </entiti> does not match <entity> opened on line 3"),
        Bad(label: "element never closed", input: header + "\n<entity name=\"A\">\n", kind: .modelFile, message: "element <entity> opened on line 3 is never closed"),
        Bad(label: "unknown entity reference", input: document("<entity name=\"A&nbsp;B\"/>"), kind: .modelFile, message: "line 3: unknown entity '&nbsp;'"),
        Bad(label: "bare ampersand", input: document("<entity name=\"A & B\"/>"), kind: .modelFile, message: "line 3: '&' must start an entity"),
        Bad(label: "bad character reference", input: document("<entity name=\"A&#xZZ;\"/>"), kind: .modelFile, message: "'&#xZZ;' is not a valid character reference"),
        Bad(label: "duplicate XML attribute", input: document("<entity name=\"A\" name=\"B\"/>"), kind: .modelFile, message: "line 3: attribute 'name' appears twice in <entity>"),
        Bad(label: "unquoted attribute", input: document("<entity name=A/>"), kind: .modelFile, message: "the value of attribute 'name' in <entity> must be quoted"),
        Bad(label: "'<' in attribute", input: document("<fetchRequest name=\"Q\" entity=\"A\" predicateString=\"a < 1\"/>"), kind: .modelFile,
            message: "'<' in the value of attribute 'predicateString' in <fetchRequest> must be written &lt;"),
        Bad(label: "second root element", input: document("") + "<model/>\n", kind: .modelFile, message: "line 5: unexpected second root element after the root element <model>"),
        Bad(label: "unterminated comment", input: document("<!-- never ends"), kind: .modelFile, message: "line 3: unterminated comment"),
        Bad(label: "DOCTYPE internal subset", input: "<!DOCTYPE model [<!ENTITY x \"y\">]>\n<model/>", kind: .modelFile, message: "DOCTYPE internal subsets"),
        Bad(label: "wrong root element", input: "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"/>", kind: .modelFile,
            message: "line 2: expected a Core Data model (a <model> root element), found <plist>"),
        Bad(label: "entity without name", input: document("<entity syncable=\"YES\"/>"), kind: .modelFile, message: "line 3: <entity> has no name"),
        Bad(label: "Transformable attribute", input: document("<entity name=\"A\">\n<attribute name=\"colors\" optional=\"YES\" attributeType=\"Transformable\" valueTransformerName=\"NSSecureUnarchiveFromData\"/>\n</entity>"),
            kind: .modelFile, message: "line 4: attribute A.colors is Transformable, which PQLStore does not support", hint: "Binary"),
        Bad(label: "ObjectID attribute", input: document("<entity name=\"A\">\n<attribute name=\"ref\" attributeType=\"ObjectID\"/>\n</entity>"),
            kind: .modelFile, message: "attribute A.ref is ObjectID, which PQLStore does not support"),
        Bad(label: "Composite attribute", input: document("<entity name=\"A\">\n<attribute name=\"address\" attributeType=\"Composite\" composite=\"Address\"/>\n</entity>"),
            kind: .modelFile, message: "attribute A.address is Composite", hint: "flatten"),
        Bad(label: "unknown attributeType", input: document("<entity name=\"A\">\n<attribute name=\"n\" attributeType=\"Integr 64\"/>\n</entity>"),
            kind: .modelFile, message: "line 4: attribute A.n has an unknown attributeType 'Integr 64'", hint: "did you mean 'Integer 64'"),
        Bad(label: "missing attributeType", input: document("<entity name=\"A\">\n<attribute name=\"n\"/>\n</entity>"),
            kind: .modelFile, message: "line 4: attribute A.n has no attributeType"),
        Bad(label: "flag not YES or NO", input: document("<entity name=\"A\">\n<attribute name=\"n\" optional=\"maybe\" attributeType=\"String\"/>\n</entity>"),
            kind: .modelFile, message: "line 4: optional=\"maybe\" in <attribute> must be YES or NO"),
        Bad(label: "bad integer default", input: document("<entity name=\"A\">\n\n<attribute name=\"n\" attributeType=\"Integer 16\" defaultValueString=\"abc\"/>\n</entity>"),
            kind: .modelFile, message: "line 5: defaultValueString=\"abc\" of A.n is not an integer"),
        Bad(label: "integer default out of range", input: document("<entity name=\"A\">\n<attribute name=\"n\" attributeType=\"Integer 16\" defaultValueString=\"40000\"/>\n</entity>"),
            kind: .modelFile, message: "is not within the range of Integer 16"),
        Bad(label: "bad boolean default", input: document("<entity name=\"A\">\n<attribute name=\"b\" attributeType=\"Boolean\" defaultValueString=\"maybe\"/>\n</entity>"),
            kind: .modelFile, message: "defaultValueString=\"maybe\" of A.b is not a boolean", hint: "YES or NO"),
        Bad(label: "relationship without destination", input: document("<entity name=\"A\">\n<relationship name=\"r\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\"/>\n</entity>"),
            kind: .modelFile, message: "line 4: relationship A.r has no destinationEntity"),
        Bad(label: "unknown deletion rule", input: document("<entity name=\"A\">\n<relationship name=\"r\" maxCount=\"1\" deletionRule=\"Cascde\" destinationEntity=\"A\"/>\n</entity>"),
            kind: .modelFile, message: "line 4: relationship A.r has an unknown deletionRule 'Cascde'", hint: "did you mean 'Cascade'?"),
        Bad(label: "inverse on another entity", input: document("<entity name=\"A\">\n<relationship name=\"r\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"A\" inverseName=\"s\" inverseEntity=\"B\"/>\n</entity>"),
            kind: .modelFile, message: "relationship A.r leads to 'A' but names its inverse on 'B'"),
        Bad(label: "destination not in the model", input: document("<entity name=\"A\">\n<relationship name=\"r\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Zed\"/>\n</entity>"),
            kind: .invalidModel, message: "relationship A.r leads to an unknown entity 'Zed' (Test.xcdatamodel/contents, line 4)"),
        Bad(label: "to-many without inverse", input: document("<entity name=\"A\">\n<relationship name=\"bs\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"B\"/>\n</entity>\n<entity name=\"B\"/>"),
            kind: .invalidModel, message: "to-many relationship A.bs has no inverse to-one on B (Test.xcdatamodel/contents, line 4)"),
        Bad(label: "duplicate attribute", input: document("<entity name=\"A\">\n<attribute name=\"n\" attributeType=\"String\"/>\n<attribute name=\"n\" attributeType=\"String\"/>\n</entity>"),
            kind: .invalidModel, message: "entity 'A' declares 'n' twice (Test.xcdatamodel/contents, line 5)"),
        Bad(label: "unknown parent entity", input: document("<entity name=\"A\" parentEntity=\"Base\"/>"),
            kind: .invalidModel, message: "entity 'A' names an unknown parent 'Base' (Test.xcdatamodel/contents, line 3)"),
        Bad(label: "fetch request predicate does not parse", input: document("<entity name=\"A\"/>\n<fetchRequest name=\"Q\" entity=\"A\" predicateString=\"x ==\"/>"),
            kind: .modelFile, message: "line 4: the predicate of fetch request 'Q' does not parse"),
        Bad(label: "bad fetchLimit", input: document("<entity name=\"A\"/>\n<fetchRequest name=\"Q\" entity=\"A\" fetchLimit=\"ten\"/>"),
            kind: .modelFile, message: "line 4: fetchLimit=\"ten\" of fetch request 'Q' is not a non-negative integer"),
        Bad(label: "fetch index on an expression", input: document("<entity name=\"A\">\n<fetchIndex name=\"i\">\n<fetchIndexElement expression=\"length:(name)\" expressionType=\"Integer 64\" order=\"ascending\"/>\n</fetchIndex>\n</entity>"),
            kind: .modelFile, message: "line 5: fetch index 'i' of entity 'A' indexes an expression"),
    ]

    @Test(arguments: badXcode)
    func malformedXcode(_ bad: Bad) throws {
        guard case .failure(let e) = try Self.xcode(bad.input) else { Issue.record("\(bad.label) was accepted"); return }
        #expect(e.kind == bad.kind, "\(e)")
        #expect(e.message.contains(bad.message), "message: \(e.message)")
        if let hint = bad.hint { #expect(e.hint?.contains(hint) == true, "hint: \(e.hint ?? "none")") }
    }

    @Test func invalidUTF8IsRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("contents")
        try Data([0x3C, 0x6D, 0x6F, 0x64, 0x65, 0x6C, 0xFF, 0x2F, 0x3E]).write(to: file)
        let e = try #require(Self.failure { () throws(StoreError) in try StoreModel(xcdatamodel: file) })
        #expect(e.kind == .modelFile && e.message.contains("not valid UTF-8"))
        let e2 = try #require(Self.failure { () throws(StoreError) in try StoreModel(json: Data([0x7B, 0xFF, 0x7D])) })
        #expect(e2.kind == .modelFile && e2.message.contains("not valid JSON"))
        try #require("<model/>".data(using: .utf16)).write(to: file)
        let e3 = try #require(Self.failure { () throws(StoreError) in try StoreModel(xcdatamodel: file) })
        #expect(e3.kind == .modelFile && e3.message.contains("UTF-16"))
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let deep = String(repeating: "<a>", count: 5000) + String(repeating: "</a>", count: 5000)
        guard case .failure(let e) = try Self.xcode(deep) else { Issue.record("accepted"); return }
        #expect(e.kind == .modelFile && e.message.contains("nest deeper than"))
    }
}
