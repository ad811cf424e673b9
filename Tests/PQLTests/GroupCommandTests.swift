import Foundation
import Testing

/// Grouping from the command line (`pql query --group-by`) and the REPL (`.group`).
@Suite(.serialized) struct GroupCommandTests {
    @Test func queryGroupsTheDemoFlightsPerAirline() throws {
        let r = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--where", "dep_delay != nil", "--group-by", "airline.name",
                                    "--select", "avg=average:(dep_delay)", "--select", "n=count:(dep_delay)",
                                    "--having", "n > 1000", "--sort", "avg:desc", "--limit", "2"], environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == """
            {"airline.name":"ExpressJet Airlines Inc.","avg":19.955389827868213,"n":51356}
            {"airline.name":"AirTran Airways Corporation","avg":18.72607467838092,"n":3187}

            """, "\(r.stdout)")
    }

    @Test func queryShowsTheGroupSQLAndRefusesBadUse() throws {
        let sql = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--group-by", "origin", "--select", "n=count:(id)",
                                      "--having", "n > 100000", "--sql"], environment: DemoCache.environment)
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(sql.stdout.contains("GROUP BY t0.\"origin\""), "\(sql.stdout)")
        #expect(sql.stdout.contains("?1 = 100000"), "\(sql.stdout)")
        // Cancelled flights have no dep_delay: a grouped average leaves them out, as SQL's AVG does.
        let nils = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--group-by", "origin", "--select", "average:(dep_delay)"],
                                      environment: DemoCache.environment)
        #expect(nils.status == 0, "\(nils.stderr)")
        #expect(nils.stdout.split(separator: "\n").count == 3 && nils.stdout.contains(#""origin":"EWR""#), "\(nils.stdout)")
        let noSelect = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--group-by", "origin"], environment: DemoCache.environment)
        #expect(noSelect.status != 0)
        #expect(noSelect.stderr.contains("--select"), "\(noSelect.stderr)")
        let unknown = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--group-by", "origin", "--select", "n=count:(id)",
                                          "--having", "dest == 'SFO'"], environment: DemoCache.environment)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("neither a group key nor an aggregate"), "\(unknown.stderr)")
    }

    @Test func replGroupsWorstFirst() throws {
        let r = try PQLProcess.run([], stdin: Data("""
            .limit 3
            .group airline.name avg=average:(dep_delay) where dep_delay != nil
            .group airline.name average:(dep_delay)
            .help

            """.utf8), environment: DemoCache.environment)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("Frontier Airlines Inc.") })
        #expect(lines[first - 2].hasPrefix("airline.name") && lines[first - 2].hasSuffix("avg"), "\(r.stdout)")
        #expect(lines[first].hasSuffix("20.215542521994134"))
        #expect(lines[first + 1].hasPrefix("ExpressJet Airlines Inc."))
        #expect(lines[first + 2].hasPrefix("Mesa Airlines Inc."))
        #expect(lines[first + 3] == "the first 3 groups (.limit N or .limit 0 for more)")
        // Without the where clause the nils are left out all the same: the same worst airline.
        let second = try #require(lines[(first + 1)...].firstIndex { $0.hasPrefix("Frontier Airlines Inc.") })
        #expect(lines[second].hasSuffix("20.215542521994134"), "\(r.stdout)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout.contains(".group KEYPATH[, …] AGGREGATE… [asc] [where PREDICATE]"), "\(r.stdout)")
        #expect(r.stdout.contains("by the first aggregate, largest first (asc: smallest first)"), "\(r.stdout)")
    }

    @Test func replGroupsAFileInMemory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("cities.csv")
        try "city,country,population\nParis,FR,2100000\nLyon,FR,520000\nBerlin,DE,3600000\n".write(to: csv, atomically: true, encoding: .utf8)
        let r = try PQLProcess.run([csv.path], stdin: Data(".group country people=sum:(population) n=count:(city)\n".utf8),
                                   environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("""
            country   people  n
            -------  -------  -
            DE       3600000  1
            FR       2620000  2
            2 groups
            """), "\(r.stdout)")
    }

    @Test func replGroupKeysMayHaveSpacesAfterCommasAndSortAscending() throws {
        let r = try PQLProcess.run([], stdin: Data("""
            .format csv
            .group origin, airline.name n=count:(flight) where dest=='HNL'
            .group origin,airline.name n=count:(flight) where dest=='HNL'
            .limit 2
            .group airline.name average:(dep_delay) asc
            .group airline.name average:(dep_delay) ASC where dep_delay != nil
            .group origin n=count:(flight) desc

            """.utf8), environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        let hnl = "origin,airline.name,n\nEWR,United Air Lines Inc.,365\nJFK,Hawaiian Airlines Inc.,342\n"
        #expect(r.stdout.hasPrefix(hnl + hnl), "the same groups with and without the space: \(r.stdout)")
        let punctual = "airline.name,average:(dep_delay)\nUS Airways Inc.,3.7824183565641825\nHawaiian Airlines Inc.,4.900584795321637\n"
        #expect(r.stdout.contains(punctual + punctual), "smallest first: \(r.stdout)")
        #expect(r.stdout.hasSuffix("origin,n\nEWR,120835\nJFK,111279\n"), "\(r.stdout)")
        let bad = try PQLProcess.run(["-c", ".group origin, n=count:(flight)", "-c", ".group origin asc"], environment: DemoCache.environment)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("error: write .group KEYPATH AGGREGATE…"), "\(bad.stderr)")
    }
}
