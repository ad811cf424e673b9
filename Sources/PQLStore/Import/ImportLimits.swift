/// Bounds on what an import reads, so that a small hostile file (a ZIP bomb, a CSV that is one
/// endless quoted field) cannot make it use unbounded memory or time. Each bound exceeded is a
/// ``StoreError`` of kind `importFailed` naming it and the property to raise.
///
/// An import streams its file, so memory does not grow with the file; what it holds at once
/// is one record (a CSV row, a JSON object) and a buffer of about a megabyte.
///
/// ```swift
/// var limits = ImportLimits()
/// limits.maxUnzippedBytes = 4 << 30 - 1          // a trusted archive of up to 4 GiB
/// let source = try ImportSource(contentsOf: URL(fileURLWithPath: "big.csv.zip"), limits: limits)
/// ```
public struct ImportLimits: Sendable, Hashable {
    /// The most bytes a ZIP entry may unzip to (default 1 GiB).
    public var maxUnzippedBytes: Int
    /// The most an entry may grow when unzipped, as a multiple of its compressed size (default
    /// 100). Text and CSV files compress 3 to 20 times; a ZIP bomb grows up to 1,032 times.
    public var maxCompressionRatio: Int
    /// The longest record an import holds in memory at once: a CSV row with its quoted fields,
    /// one JSON object (default 16 MiB).
    public var maxRecordBytes: Int

    /// Limits with the given values; the defaults suit any ordinary data file.
    ///
    /// ```swift
    /// let strict = ImportLimits(maxUnzippedBytes: 100 << 20, maxCompressionRatio: 20)
    /// ```
    public init(maxUnzippedBytes: Int = 1 << 30, maxCompressionRatio: Int = 100, maxRecordBytes: Int = 16 << 20) {
        self.maxUnzippedBytes = maxUnzippedBytes
        self.maxCompressionRatio = maxCompressionRatio
        self.maxRecordBytes = maxRecordBytes
    }
}
