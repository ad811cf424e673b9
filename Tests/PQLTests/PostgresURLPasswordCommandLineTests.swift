import Foundation
import Testing

/// `pql` never prints a password from a PostgreSQL URL it cannot read, or reads as another
/// URL than meant (a password with an unencoded `/`, `#`, `?`, `:` or `@`; a `?Password=`).
@Suite struct PostgresURLPasswordCommandLineTests {
    @Test func errorsShowNoPassword() throws {
        for (url, secret) in [("postgres://pwuser:pa/ss@127.0.0.1:1/db", "pa/ss"), ("postgres://pwuser:pa#ss@127.0.0.1:1/db", "pa#ss"),
                              ("postgres://pwuser:pa?ss@127.0.0.1:1/db", "pa?ss"), ("postgres://pwuser:pa:ss@127.0.0.1:1/db", "pa:ss"),
                              ("postgres://pwuser:p@ss@127.0.0.1:1/db", "p@ss"), ("postgres://u:1/2@127.0.0.1:1/db", ":1/2"),
                              ("postgres://u@127.0.0.1:1/db?Password=sekrit", "sekrit")] {
            for arguments in [["query", url, "--where", "a > 1"], [url, "-c", ".count"]] {
                let r = try PQLProcess.run(arguments + ["--no-rc"].filter { _ in arguments.first != "query" })
                #expect(r.status != 0)
                #expect(!r.stderr.contains(secret) && !r.stdout.contains(secret), "\(url): \(r.stderr)")
            }
        }
    }
}
