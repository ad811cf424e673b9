// `import PQLStore` is enough for a store: the language (predicates, values, queries) comes with it.
@_exported import PQL
