import Foundation
import ModelHub
import Testing

@Suite("PostgresCatalog connection URLs")
struct PostgresCatalogURLTests {
    @Test func bothSchemesDefaultsAndPort() throws {
        let short = try PostgresConnectionURL(parsing: "postgres://hub:pw@db.example:6543/catalogue")
        #expect(
            short
                == PostgresConnectionURL(
                    user: "hub", password: "pw", host: "db.example", port: 6543, database: "catalogue"))
        #expect(short.sslMode == .prefer)
        let long = try PostgresConnectionURL(parsing: "postgresql://hub@127.0.0.1/catalogue")
        #expect(
            long
                == PostgresConnectionURL(
                    user: "hub", password: nil, host: "127.0.0.1", port: 5432, database: "catalogue"))
        let ipv6 = try PostgresConnectionURL(parsing: "postgres://hub@[::1]:7000/db")
        #expect(ipv6.host == "::1")
        #expect(ipv6.port == 7000)
        #expect(ipv6.redacted == "postgres://hub@[::1]:7000/db")
    }

    @Test func sslModes() throws {
        for mode in PostgresConnectionURL.SSLMode.allCases {
            let url = try PostgresConnectionURL(parsing: "postgres://u@h/d?sslmode=\(mode.rawValue)")
            #expect(url.sslMode == mode)
        }
        #expect(throws: PostgresConnectionURLError.unsupportedSSLMode("verify-ca")) {
            try PostgresConnectionURL(parsing: "postgres://u@h/d?sslmode=verify-ca")
        }
        #expect(throws: PostgresConnectionURLError.unsupportedParameter("connect_timeout")) {
            try PostgresConnectionURL(parsing: "postgres://u@h/d?sslmode=disable&connect_timeout=3")
        }
    }

    @Test func passwordFallsBackToPGPASSWORD() throws {
        let fromEnvironment = try PostgresConnectionURL(parsing: "postgres://u@h/d", environmentPassword: "env")
        #expect(fromEnvironment.password == "env")
        let emptyInURL = try PostgresConnectionURL(parsing: "postgres://u:@h/d", environmentPassword: "env")
        #expect(emptyInURL.password == "env")
        let inURL = try PostgresConnectionURL(parsing: "postgres://u:url@h/d", environmentPassword: "env")
        #expect(inURL.password == "url")
        let none = try PostgresConnectionURL(parsing: "postgres://u@h/d", environmentPassword: "")
        #expect(none.password == nil)
    }

    @Test func percentDecoding() throws {
        let url = try PostgresConnectionURL(parsing: "postgres://hub%40corp:p%40ss%3Aw%2Fo%3Frd@h:1/my%20db")
        #expect(url.user == "hub@corp")
        #expect(url.password == "p@ss:w/o?rd")
        #expect(url.database == "my db")
        #expect(url.redacted == "postgres://hub%40corp:***@h:1/my%20db")
        // An unencoded "@" in the password still parses: the last "@" ends the credentials.
        #expect(try PostgresConnectionURL(parsing: "postgres://u:a@b@h/d").password == "a@b")
        #expect(throws: PostgresConnectionURLError.invalidPercentEncoding(component: "password")) {
            try PostgresConnectionURL(parsing: "postgres://u:bad%zz@h/d")
        }
    }

    @Test func redactedDescriptionsHideThePassword() throws {
        let url = try PostgresConnectionURL(parsing: "postgres://hub:S3cr3t-Pa55@db:5433/cat?sslmode=require")
        #expect(url.redacted == "postgres://hub:***@db:5433/cat")
        for text in ["\(url)", String(reflecting: url), url.description] {
            #expect(!text.contains("S3cr3t-Pa55"), "leaked in \(text)")
        }
        var dumped = ""
        dump(url, to: &dumped)
        #expect(!dumped.contains("S3cr3t-Pa55"))
    }

    /// Malformed URLs holding a password: no rendering of the error may contain it.
    @Test(arguments: [
        ("mysql://u:S3cr3t-Pa55@h/d", PostgresConnectionURLError.unsupportedScheme),
        ("S3cr3t-Pa55", .unsupportedScheme),
        ("postgres://u:S3cr3t-Pa55@h:port/d", .invalidPort),
        ("postgres://u:S3cr3t-Pa55@h:99999/d", .invalidPort),
        ("postgres://u:S3cr3t-Pa55@/d", .missingHost),
        ("postgres://u:S3cr3t-Pa55@h", .missingDatabase),
        ("postgres://u:S3cr3t-Pa55@h/", .missingDatabase),
        ("postgres://:S3cr3t-Pa55@h/d", .missingUser),
        ("postgres://u:S3cr3t-Pa55/x@h/d", .missingUser),
        ("postgres://u:S3cr3t-Pa55%G@h/d", .invalidPercentEncoding(component: "password")),
        ("postgres://h:S3cr3t-Pa55/d", .missingUser),
        ("postgres://u@h:S3cr3t-Pa55/d", .invalidPort),
    ])
    func errorsNeverContainThePassword(url: String, expected: PostgresConnectionURLError) {
        do {
            let parsed = try PostgresConnectionURL(parsing: url)
            Issue.record("parsed \(parsed) from a malformed URL")
        } catch {
            #expect(error == expected)
            for text in [error.localizedDescription, "\(error)", String(reflecting: error)] {
                #expect(!text.contains("S3cr3t"), "the password leaked: \(text)")
            }
        }
    }
}
