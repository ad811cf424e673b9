import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// The version of the SQL functions this build of PQL installs: a fingerprint of their
    /// SQL, so a PQL whose folding changed installs its own over older ones.
    ///
    /// ```swift
    /// print(PostgresPredicateStore.functionsVersion)
    /// ```
    public static var functionsVersion: String { NativeFunctionSQL.version }

    /// Installs PQL's SQL functions in ``functionSchema`` (`pql`), unless functions of this
    /// version are there already; returns true when it installed them.
    ///
    /// - `fold_c(text)`, `fold_d(text)`, `fold_cd(text)`: PQL's `[c]`, `[d]` and `[cd]` folding,
    ///   generated from the fold PQL runs in memory (Unicode normalisation with PostgreSQL's
    ///   `normalize`, then each scalar's fold looked up in a `jsonb` map), so an
    ///   expression `pql.fold_cd(name) = pql.fold_cd($1)` compares as `name ==[cd] $1` does in
    ///   memory. Each is an `IMMUTABLE`, `PARALLEL SAFE` SQL expression PostgreSQL inlines (ASCII
    ///   text folds with `lower`) around a PL/pgSQL `fold_*_slow` for other text, so an
    ///   expression index on `pql.fold_cd(name)` serves `=` and (with `text_pattern_ops`)
    ///   prefixes, and a `pg_trgm` GIN index on it serves `LIKE '%…%'`. They need a UTF8 database.
    /// - `uppercase(text)`, `lowercase(text)`, `utf16_length(text)`: `uppercase:`, `lowercase:`
    ///   and `length:` as Swift computes them (full case mapping, UTF-16 code units); integer
    ///   division and remainder with PQL's rules for a zero divisor (`int_div`, `int_mod`);
    ///   IEEE double arithmetic, infinities where PostgreSQL's operators raise (`float_add`,
    ///   `float_subtract`, `float_multiply`, `float_divide`); and `arg`, which raises the
    ///   evaluator's error for a nil operand (SQLSTATE `PQL01`).
    /// - `functions_version()`: the installed version (``functionsVersion``).
    ///
    /// Strings in PQL order by Unicode scalar; on a UTF8 database that is PostgreSQL's
    /// `COLLATE "C"` (bytewise UTF-8 order is scalar order), so no function is needed for it.
    ///
    /// Installing another version replaces the functions and rebuilds (`REINDEX`) the indexes
    /// that use them, whose entries the old fold computed. One transaction, serialised by an
    /// advisory lock, so concurrent installs are safe. Needs the privilege to create the schema
    /// (or functions in it).
    ///
    /// ```swift
    /// try await store.installFunctions()
    /// // CREATE INDEX airlines_name_cd ON airlines (pql.fold_cd(name));
    /// ```
    @discardableResult
    public func installFunctions() async throws(StoreError) -> Bool {
        try await changingSchema { () throws(StoreError) -> Bool in try await self.install() }
    }

    /// ``installFunctions()``, without reading the indexes again.
    private func install() async throws(StoreError) -> Bool {
        let functionSchema = self.functionSchema
        let statements = NativeFunctionSQL.all(schema: functionSchema)
        let version = NativeFunctionSQL.version
        let s = quote(functionSchema)
        return try await transaction("installing PQL's SQL functions") { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(hashtext('pql.functions.' || \(functionSchema)))", logger: self.logger)
            var installed: String? = nil
            for try await row in try await connection.statement("SELECT to_regprocedure(quote_ident(\(functionSchema)) || '.functions_version()') IS NOT NULL", logger: self.logger) {
                if try row.decode(Bool.self) {
                    for try await v in try await connection.statement(PostgresQuery(unsafeSQL: "SELECT \(s).functions_version()"), logger: self.logger) {
                        installed = try v.decode(String.self)
                    }
                }
            }
            if installed == version { return false }
            try await connection.run(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(s)"), logger: self.logger)
            for sql in statements { try await connection.run(PostgresQuery(unsafeSQL: sql), logger: self.logger) }
            try await connection.run(PostgresQuery(unsafeSQL: """
                CREATE OR REPLACE FUNCTION \(s).functions_version() RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
                AS $pql$ SELECT \(FoldFunctionSQL.quoteLiteral(version))::text $pql$
                """), logger: self.logger)
            if installed != nil {
                // Indexes over the old fold hold its results: rebuild them with the new one.
                var indexes: [String] = []
                for try await row in try await connection.statement("""
                    SELECT DISTINCT d.objid::regclass::text FROM pg_depend d
                    JOIN pg_proc p ON p.oid = d.refobjid JOIN pg_namespace n ON n.oid = p.pronamespace
                    WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_proc'::regclass
                      AND n.nspname = \(functionSchema) AND p.proname IN ('fold_c', 'fold_d', 'fold_cd', 'fold_c_slow', 'fold_d_slow', 'fold_cd_slow', 'uppercase', 'lowercase', 'utf16_length', 'uppercase_slow', 'lowercase_slow', 'utf16_length_slow')
                    """, logger: self.logger) {
                    indexes.append(try row.decode(String.self))
                }
                for index in indexes {
                    try await connection.run(PostgresQuery(unsafeSQL: "REINDEX INDEX \(index)"), logger: self.logger)
                }
            }
            return true
        }
    }
}
