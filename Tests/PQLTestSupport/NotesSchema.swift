import PQLStore

/// The object tests' notes (ObjectPredicateTests, PostgresObjectPredicateTests): folders keyed
/// by a declared `id`, notes in a folder (or none), tags of their own.
package enum NotesSchema {
    package static let entities = [
        ModelEntity("Folder", attributes: [ModelAttribute("name", .string)],
                    relationships: [ModelRelationship("notes", toMany: "Note", inverse: "folder")], primaryKey: "id"),
        ModelEntity("Note", attributes: [ModelAttribute("title", .string)],
                    relationships: [ModelRelationship("folder", to: "Folder", inverse: "notes"),
                                    ModelRelationship("tags", toMany: "Tag", inverse: "note", deleteRule: .cascade)]),
        ModelEntity("Tag", attributes: [ModelAttribute("name", .string)],
                    relationships: [ModelRelationship("note", to: "Note", inverse: "tags")]),
    ]
}
