import PQLPostgres
import PQLStore
import Testing

/// A password with an unencoded `/`, `#`, `?`, `:` or `@` makes the URL unreadable (or read
/// with the password's tail as a port or path), and the error quoted the URL with it:
/// `'postgres://pwuser:pa/ss@…' is not a PostgreSQL URL`. A `?Password=` parameter (another
/// case) was quoted whole. No password shows, however the text reads.
@Suite struct PostgresURLPasswordTests {
    static let secrets = ["pa/ss", "pa#ss", "pa?ss", "pa:ss", "p@ss", "1/2"]

    @Test func noReadingOfTheTextShowsThePassword() {
        for secret in Self.secrets {
            for given in ["postgres://pwuser:\(secret)@db.example:5433/shop", "postgres://pwuser:\(secret)@db.example/shop?sslmode=disable"] {
                for shown in [PostgresConnectionURL.withoutPassword(given), PostgresConnectionURL.redacted(given)] {
                    #expect(!shown.contains(secret) && !shown.contains("ss@"), "\(given) → \(shown)")
                    // The user, host, port, database and parameters stay.
                    #expect(shown.hasPrefix("postgres://pwuser") && shown.hasSuffix("@" + given.split(separator: "@").last!), "\(given) → \(shown)")
                }
            }
        }
        for name in ["Password", "PASSWORD", "password"] {
            let given = "postgres://u@db/shop?\(name)=sekrit&sslmode=disable"
            #expect(PostgresConnectionURL.withoutPassword(given) == "postgres://u@db/shop?sslmode=disable")
            #expect(PostgresConnectionURL.redacted(given) == "postgres://u@db/shop?\(name)=***&sslmode=disable")
        }
        // An @ in a parameter of a URL without a password is left alone.
        #expect(PostgresConnectionURL.withoutPassword("postgres://u@db/shop?application_name=a@b") == "postgres://u@db/shop?application_name=a@b")
    }

    @Test func theErrorForAURLThatDoesNotParseShowsNoPassword() {
        for secret in Self.secrets.prefix(3) {
            let e = #expect(throws: StoreError.self) { try PostgresConnectionURL("postgres://pwuser:\(secret)@db/shop") }
            #expect(e?.message.contains(secret) == false, "\(e?.message ?? "")")
        }
        let e = #expect(throws: StoreError.self) { try PostgresConnectionURL("postgres://u@db/shop?Password=sekrit") }
        #expect(e?.message.contains("sekrit") == false, "\(e?.message ?? "")")
    }
}
