/// Finds what in a predicate format string is legal but probably not meant: `'%@'` in quotes
/// with an argument that is never used, argument counts that do not match, a constant compared
/// with a constant (keys passed with `%@` instead of `%K`, a key name in quotes), comparisons
/// that can never be true, `[c]` or `[d]` on numbers, `LIKE` without a wildcard, and parts of
/// the predicate that are always true or always false.
///
/// Each finding is a ``PredicateDiagnostic`` with its place, a message, a hint and, where the
/// fix is certain, a ``PredicateDiagnostic/replacement``. A format string that does not parse
/// gives one diagnostic of severity ``PredicateDiagnostic/Severity/error``; linting never
/// throws. `pql lint` prints these and exits 1 when there are any.
///
/// ```swift
/// for d in PredicateLinter.lint(format: "%@ == %@", argumentArray: ["name", "Bob"]) {
///     print(d.rendered)
/// }
/// // warning: both sides of == are values: %@ gives the string "name", not the key name
/// //  --> line 1, column 1
/// // …
/// //   = hint: pass key names with %K: %K == %@
/// ```
public enum PredicateLinter {
    /// The most findings the checks of the tree report, the first in the tree's order (the
    /// parse's own warnings come on top): past that, one more of the same helps no one, and
    /// placing each costs a pass over the text.
    ///
    /// ```swift
    /// PredicateLinter.maxFindings   // 100
    /// ```
    public static let maxFindings = 100

    /// The findings for `format` with `argumentArray`, in the order of the text: the parse's
    /// own warnings (``PredicateNode/parseWithWarnings(format:argumentArray:)``) first, then
    /// the checks of the tree. Empty when there is nothing to say.
    ///
    /// ```swift
    /// PredicateLinter.lint(format: "id == %@", argumentArray: ["x"]).isEmpty     // true
    /// PredicateLinter.lint(format: "id == '%@'", argumentArray: ["x"]).map(\.kind)
    /// // [surplusArgument, quotedSpecifier]
    /// ```
    public static func lint(format: String, argumentArray: [Any?] = []) -> [PredicateDiagnostic] {
        let parsed: (node: PredicateNode, map: SourceMap, warnings: [PredicateDiagnostic])
        do {
            parsed = try Parser.parsePredicate(format, arguments: ArgumentList(argumentArray), recordsPositions: true)
        } catch {
            return [PredicateDiagnostic(error)]
        }
        return parsed.warnings + treeFindings(parsed.node, sourceMap: parsed.map)
    }

    /// The checks of the tree alone, for a tree parsed with its map (`pql format` has both).
    package static func treeFindings(_ tree: PredicateNode, sourceMap: SourceMap) -> [PredicateDiagnostic] {
        // A map that does not match the tree node for node would put carets in wrong places.
        guard sourceMap.fits(tree) else { return [] }
        var walker = LintWalk(source: sourceMap.source, map: sourceMap)
        walker.visit(.predicate(tree), sourceMap.root, parent: nil)
        return walker.findings
    }
}
