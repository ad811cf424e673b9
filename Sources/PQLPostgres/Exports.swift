// `import PQLPostgres` is enough for a PostgreSQL store: the model, queries and records of
// PQLStore, and the language of PQL, come with it.
@_exported import PQLStore
