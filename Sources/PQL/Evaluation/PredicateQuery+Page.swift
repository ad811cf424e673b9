extension PredicateQuery {
    /// The positions of the page that `offset` and `limit` select among `count` results.
    ///
    /// Offsets and limits come from users (`?limit=` of a server, `pql --limit`, the REPL's
    /// `.limit`), so any `Int` is valid: a negative one counts as 0, and `offset + limit` is
    /// never computed, because `--offset 1 --limit 9223372036854775807` would overflow it.
    ///
    /// ```swift
    /// PredicateQuery.page(of: 10, offset: 8, limit: .max)   // 8..<10
    /// ```
    package static func page(of count: Int, offset: Int, limit: Int?) -> Range<Int> {
        let start = min(max(0, offset), count)
        guard let limit else { return start..<count }
        return start..<(start + min(max(0, limit), count - start))
    }
}
