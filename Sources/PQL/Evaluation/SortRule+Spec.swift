import Foundation

extension SortRule {
    /// Why a sort spec did not parse.
    ///
    /// ```swift
    /// do { _ = try SortRule(spec: "name:up") } catch { print(error.kind) }   // unknownModifier("up")
    /// ```
    public struct SpecError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
        /// What is wrong with the spec.
        ///
        /// ```swift
        /// if case .unknownModifier(let word) = error.kind { print("unknown: \(word)") }
        /// ```
        public enum Kind: Hashable, Sendable {
            /// The spec has no key path, or one with an empty component (`a..b`).
            case missingKeyPath
            /// A `:modifier` that is not one of ``SortRule/specModifiers``.
            case unknownModifier(String)
        }

        /// What is wrong with the spec, as a value a program can switch on.
        public let kind: Kind
        /// The whole spec.
        public let spec: String

        /// What is wrong with the spec, in a sentence.
        ///
        /// ```swift
        /// do { _ = try SortRule(spec: "name:up") } catch { print(error) }
        /// // sort spec 'name:up' has an unknown modifier 'up' (the modifiers are asc, desc, ci, localized, literal)
        /// ```
        public var description: String {
            switch kind {
            case .missingKeyPath: return "sort spec '\(spec)' has no key path (write key.path[:asc|:desc][:ci|:localized|:literal])"
            case .unknownModifier(let m):
                return "sort spec '\(spec)' has an unknown modifier '\(m)' (the modifiers are \(SortRule.specModifiers.joined(separator: ", ")))"
            }
        }

        /// The ``description``, so that `error.localizedDescription` reads as it should.
        ///
        /// ```swift
        /// do { _ = try SortRule(spec: ":desc") } catch { print(error.localizedDescription) }
        /// ```
        public var errorDescription: String? { description }
    }

    /// The modifiers a spec accepts after its key path (plus the aliases `ascending`,
    /// `descending`, `c`, `caseinsensitive` and `l`).
    public static let specModifiers = ["asc", "desc", "ci", "localized", "literal"]

    /// A sort rule from its text form, `key.path[:asc|:desc][:ci|:localized|:literal]`, as
    /// `pql --sort` and model files write it.
    ///
    /// ```swift
    /// let rule = try SortRule(spec: "name:ci:desc")   // name, case-insensitive, descending
    /// ```
    public init(spec: String) throws(SpecError) {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let key = parts.first, !key.isEmpty,
              !key.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw SpecError(kind: .missingKeyPath, spec: spec)
        }
        self.init(key)
        for modifier in parts.dropFirst() {
            switch modifier.lowercased() {
            case "asc", "ascending": ascending = true
            case "desc", "descending": ascending = false
            case "ci", "c", "caseinsensitive": comparison = .caseInsensitive
            case "localized", "l": comparison = .localized
            case "literal": comparison = .literal
            default: throw SpecError(kind: .unknownModifier(modifier), spec: spec)
            }
        }
    }

    /// The rule's text form, which ``init(spec:)`` reads back.
    ///
    /// ```swift
    /// SortRule("age", ascending: false).spec   // "age:desc"
    /// ```
    public var spec: String {
        var s = keyPath.joined(separator: ".")
        if !ascending { s += ":desc" }
        switch comparison {
        case .literal: break
        case .caseInsensitive: s += ":ci"
        case .localized: s += ":localized"
        }
        return s
    }
}
