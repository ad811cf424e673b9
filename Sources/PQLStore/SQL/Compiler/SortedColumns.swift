/// What a database's catalog says of the columns a fetch may sort by, so that its ORDER BY is
/// one a plain index serves: PQL's order puts nil first ascending and NaN between nil and the
/// numbers, which PostgreSQL writes with `NULLS FIRST` and a `CASE` on NaN; neither is needed
/// for a column that cannot hold the value, and an index on the column serves the plain form.
package struct SortedColumns: Sendable, Equatable {
    /// Columns declared `NOT NULL`.
    package var holdingNoNull: Set<IndexedColumn>
    /// Floating-point columns whose `CHECK` constraint refuses NaN (`CHECK (price <> 'NaN')`).
    package var holdingNoNaN: Set<IndexedColumn>

    package init(holdingNoNull: Set<IndexedColumn> = [], holdingNoNaN: Set<IndexedColumn> = []) {
        self.holdingNoNull = holdingNoNull
        self.holdingNoNaN = holdingNoNaN
    }
}

/// What is known of the values one ORDER BY term sorts (nothing, unless the catalog says so).
package struct SortedValues: Sendable, Equatable {
    /// No row of the fetch has NULL there: a `NOT NULL` column of the fetch's own table (a
    /// column read through a LEFT JOIN is NULL where the row links to nothing).
    package var haveNoNull = false
    /// No row has NaN there.
    package var haveNoNaN = false

    package init(haveNoNull: Bool = false, haveNoNaN: Bool = false) {
        self.haveNoNull = haveNoNull
        self.haveNoNaN = haveNoNaN
    }
}
