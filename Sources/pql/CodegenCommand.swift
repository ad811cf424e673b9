import ArgumentParser
import Foundation
import PQLDemo
import PQLStore

/// `pql codegen`: a model file's record types as Swift source.
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Write the Swift record types (EntityRecord structs) of a JSON model file or an Xcode Core Data model.",
        discussion: """
        As Xcode's Codegen writes classes from a Core Data model: one struct per entity, conforming to PQLStore's EntityRecord, each attribute a property of its Swift type (optional when the attribute is), the declared key an Int64?, a to-one an Int64? holding the related object's key, a many-to-many an [Int64] of keys, and the relationships, indexes and unique attributes declared. Names that are not Swift identifiers are made into ones, with CodingKeys mapping them back. Open the store with the model and the types (PredicateStore(path:model:records:)): the types are checked against the model.

        Examples:
          pql codegen :demo:
          pql codegen :demo: --output Records.swift
        """
    )

    @Argument(help: ArgumentHelp("A .json model file, an .xcdatamodeld or .xcdatamodel directory, an SQLite store (its model), or :demo:.", valueName: "model"))
    var model: String

    @Option(help: "Write the source to this file instead of standard output.")
    var output: String?

    func run() throws {
        let loaded: StoreModel
        do {
            if model == ":demo:" {
                loaded = try DemoDatabase.open(readOnly: true).model
            } else {
                let url = URL(fileURLWithPath: model)
                guard FileManager.default.fileExists(atPath: model) else { throw UserFacingError(text: "error: cannot read \(model): no such file") }
                let ext = url.pathExtension.lowercased()
                loaded = ["json", "xcdatamodeld", "xcdatamodel"].contains(ext) || url.lastPathComponent == "contents"
                    ? try StoreModel(contentsOf: url) : try PredicateStore(path: model, readOnly: true).model
            }
        } catch let error as StoreError {
            throw error.userFacing
        }
        let source = RecordSourceWriter.source(for: loaded, header: "Record types of \(model == ":demo:" ? "the nycflights13 demo" : URL(fileURLWithPath: model).lastPathComponent).")
        guard let output else { return Output.write(source) }
        do { try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
            throw UserFacingError(text: "error: cannot write \(output): \(error.localizedDescription)")
        }
        Output.error("wrote \(loaded.entities.count) record type\(loaded.entities.count == 1 ? "" : "s") to \(output)")
    }
}
