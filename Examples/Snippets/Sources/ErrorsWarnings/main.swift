import PQL

// An argument no specifier takes is ignored, as NSPredicate ignores it, with a warning; a quoted
// '%@' is text, and a second warning points at it.
let (tree, warnings) = try PredicateNode.parseWithWarnings(format: "id == '%@'", argumentArray: ["x"])
print(tree)                              // id == "%@"
for w in warnings { print(w.rendered) }  // surplusArgument, then quotedSpecifier under '%@'

// The linter adds the checks of the tree's meaning, and never throws.
for d in PredicateLinter.lint(format: "%@ == %@ AND name LIKE 'Bob'", argumentArray: ["name", "Bob"]) {
    print(d.kind, d.range.column, d.hint ?? "")   // constantComparison 1 …, likeWithoutWildcard 24 …
}
