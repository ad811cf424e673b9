import Foundation
import PQL
@testable import PQLStore
import Testing

/// Store errors point where the parser saw the sub-expression at fault, render through PQL's
/// one caret renderer, name their model subjects as fields, and read well as
/// `localizedDescription`.
@Suite struct StoreErrorPositionTests {
    static func fetchError(_ format: String) -> StoreError? {
        StoreErrorTests.fetchError(format)
    }

    static func caretLine(_ rendered: String) -> String? {
        rendered.split(separator: "\n").map(String.init).first { $0.contains("^") }
    }

    @Test("the caret goes under the sub-expression that failed", arguments: [
        ("age == 1 AND nosuch.key > 2", "nosuch.key"),
        ("age == 1 AND (name == 'x' OR employer.nme == 'y')", "employer.nme"),
        ("age > 1 AND ANYKEY == 1", "ANYKEY"),
        ("age > 1 AND FUNCTION(SELF, 'f:') == 1", "FUNCTION(SELF, 'f:')"),
        ("name == 'nosuch' AND nosuch == 1", "nosuch"),
        ("age > 1 AND tags.weight > 1", "tags.weight"),
        ("age > 1 AND uppercase(tags.name) == 'X'", "tags.name"),
        ("age > 1 AND SUBQUERY(tags, $t, $t.wieght > 1).@count > 0", "$t.wieght"),
    ])
    func subExpression(_ format: String, _ failing: String) throws {
        let e = try #require(Self.fetchError(format))
        #expect(StoreErrorTests.located(e) == failing, "\(e.rendered)")
    }

    @Test("CRLF and wide characters: the one renderer keeps the caret under the key")
    func crlfAndWideCharacters() throws {
        let format = "age == 1 AND\r\n  名前 == 'x' AND nosuch.key > 2"
        let e = try #require(Self.fetchError(format))
        // 名前 is the first unknown key: two wide characters, four cells.
        #expect(e.range?.line == 2 && e.range?.column == 3)
        #expect(e.rendered == CaretRenderer.render(message: e.message, source: format, range: try #require(e.range), hint: e.hint))
        #expect(e.rendered.contains("\n2 |   名前 == 'x' AND nosuch.key > 2\n"), "\(e.rendered)")
        #expect(Self.caretLine(e.rendered) == "  |   ^~~~", "\(e.rendered)")
        let later = try #require(Self.fetchError("name == '名前' AND\r\nnosuch.key > 2"))
        #expect(Self.caretLine(later.rendered) == "  | ^~~~~~~~~~", "\(later.rendered)")
        #expect(!later.rendered.contains("\r"))
        let wide = try #require(Self.fetchError("name == '名前名前' AND nosuch > 2"))
        #expect(Self.caretLine(wide.rendered) == "  | " + String(repeating: " ", count: 23) + "^~~~~~", "\(wide.rendered)")
    }

    @Test("a fetch template's unbound variable is placed at the variable")
    func templateVariable() throws {
        let t = FetchTemplate(name: "T", entity: "Person", predicate: "age > 1 AND city == $CITY")
        do {
            _ = try t.query()
            Issue.record("no error")
        } catch {
            #expect(error.kind == .unboundVariable)
            #expect(StoreErrorTests.located(error) == "$CITY")
        }
    }

    @Test("localizedDescription is the message")
    func localizedDescription() throws {
        let e = try #require(Self.fetchError("agee > 1"))
        #expect((e as any Error).localizedDescription == "keypath 'agee' not found in entity Person")
        #expect((e as any Error as? LocalizedError)?.recoverySuggestion == "did you mean 'age'?")
        #expect(e.description.contains("line 1, column 1"))
    }

    @Test("an unknown key names its entity and key as fields")
    func unknownKeySubject() throws {
        let e = try #require(Self.fetchError("employer.nme == 'x'"))
        #expect(e.entity == "Company")
        #expect(e.property == "nme")
    }

    @Test("model errors name their subject structurally", arguments: [
        (#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "float128"}]}]}"#, "A", "x", nil),
        (#"{"entities": [{"name": "A", "relationships": [{"name": "r", "destination": "Nope"}]}]}"#, "A", "r", nil),
        (#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "string"}, {"name": "x", "type": "string"}]}]}"#, "A", "x", nil),
        (#"{"entities": [{"name": "A", "parent": "Nope"}]}"#, "A", nil, nil),
        (#"{"entities": [{"name": "A"}, {"name": "A"}]}"#, "A", nil, nil),
        (#"{"entities": [{"name": "A", "indexes": [["nope"]]}]}"#, "A", "nope", nil),
        (#"{"entities": [{"name": "A"}], "templates": [{"name": "T", "entity": "Nope"}]}"#, nil, nil, "T"),
        (#"{"entities": [{"name": "A"}], "templates": [{"name": "T", "entity": "A", "limit": -1}]}"#, nil, nil, "T"),
    ] as [(String, String?, String?, String?)])
    func modelSubjects(_ json: String, _ entity: String?, _ property: String?, _ template: String?) throws {
        let e = try #require(ModelLoaderTests.json(json))
        #expect(e.entity == entity, "\(e)")
        #expect(e.property == property, "\(e)")
        #expect(e.template == template, "\(e)")
    }

    @Test("the model-file place comes from the subject, not from the message's words")
    func modelPlaceFromSubject() throws {
        // An entity named like words of the message would have confused a search of the text.
        let e = try #require(ModelLoaderTests.json(#"{"entities": [{"name": "entity"}, {"name": "B", "relationships": [{"name": "entity", "destination": "Nope"}]}]}"#))
        #expect(e.entity == "B" && e.property == "entity")
        #expect(e.message.hasSuffix("(entities[1].relationships[0])"), "\(e.message)")
    }

    @Test("a model file read from disk keeps the subject when its name is put before the message")
    func modelFileSubject() throws {
        let dir = try ModelLoaderTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("model.json")
        try Data(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "float128"}]}]}"#.utf8).write(to: file)
        do {
            _ = try StoreModel(contentsOf: file)
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix(file.path) || error.message.contains("model.json"), "\(error.message)")
            #expect(error.entity == "A" && error.property == "x", "\(error)")
        }
    }

    @Test("Xcode model errors name their entity and property too")
    func xcodeSubjects() throws {
        let bad = ModelLoaderTests.document("<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Quaternion\"/>\n</entity>")
        guard case .failure(let e) = try ModelLoaderTests.xcode(bad) else { Issue.record("accepted"); return }
        #expect(e.entity == "A" && e.property == "x", "\(e)")
        let dangling = ModelLoaderTests.document("<entity name=\"A\">\n<relationship name=\"r\" destinationEntity=\"Nope\" maxCount=\"1\"/>\n</entity>")
        guard case .failure(let f) = try ModelLoaderTests.xcode(dangling) else { Issue.record("accepted"); return }
        #expect(f.entity == "A" && f.property == "r", "\(f)")
        #expect(f.message.contains("line 4"), "\(f.message)")
    }
}
