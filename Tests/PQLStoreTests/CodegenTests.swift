import Foundation
import PQL
@testable import PQLStore
import Testing

/// `pql codegen` (issue 28): CodegenRecords.swift is what it writes for Fixtures/codegen-model.json
/// (keywords, dashes and digits in names, every attribute type, a to-one, a many-to-many), and
/// that file is compiled into these tests: the types build, agree with the model, and store.
@Suite struct CodegenTests {
    var fixture: URL {
        get throws { try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)).appendingPathComponent("codegen-model.json") }
    }

    @Test func theCommittedRecordsAreWhatCodegenWrites() throws {
        let model = try StoreModel(contentsOf: try fixture)
        let written = RecordSourceWriter.source(for: model, header: "Record types of codegen-model.json.")
        let committed = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("CodegenRecords.swift"), encoding: .utf8)
        #expect(written == committed, "regenerate: pql codegen Tests/PQLStoreTests/Fixtures/codegen-model.json --output Tests/PQLStoreTests/CodegenRecords.swift")
    }

    @Test func theGeneratedTypesAgreeWithTheModelAndStore() throws {
        let model = try StoreModel(contentsOf: try fixture)
        let records: [any EntityRecord.Type] = [CodegenFolder.self, Codegen_note.self, CodegenTag.self]
        #expect(model.differences(from: records).isEmpty, "\(model.differences(from: records))")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PredicateStore(path: dir.appendingPathComponent("s.sqlite").path, model: model, records: records)
        let inbox = try store.insert(CodegenFolder(name: "Inbox"))
        let urgent = try store.insert(CodegenTag(label: "urgent", notes: []))
        let due = Date(timeIntervalSinceReferenceDate: 3_600)
        let id = try store.insert(Codegen_note(title: "Milk", default: true, due_date: due, _2fa: 7, price: Decimal(string: "2.50"),
                                               ref: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), link: URL(string: "https://example.com"),
                                               blob: Data([1, 2]), ratio: 0.5, folder: inbox, tags: [urgent]))
        let found = try store.fetch(Codegen_note.self, where: "folder.name == %@ AND ANY tags.label == %@ AND %K == 7", "Inbox", "urgent", "2fa")
        #expect(found.map(\.id) == [id])
        let note = try #require(found.first)
        #expect(note.default == true && note.due_date == due && note._2fa == 7 && note.price == Decimal(string: "2.50"))
        #expect(note.ref == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") && note.link == URL(string: "https://example.com"))
        #expect(note.blob == Data([1, 2]) && note.ratio == 0.5 && note.tags == [urgent])
        #expect(try store.fetch(CodegenTag.self, id: urgent)?.notes == [id])
        try store.delete(CodegenFolder.self, id: inbox)
        #expect(try store.count(Codegen_note.self) == 0, "the cascade rule came through")
    }
}
