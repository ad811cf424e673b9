import Foundation
import Testing
@testable import PQL

/// Inputs chosen to reach arithmetic and conversion edges: each must give a value or a typed
/// error, never a trap.
@Suite("Crash safety at value edges")
struct CrashSafetyTests {
    @Test("evaluates or fails cleanly", arguments: [
        "CAST(CAST(1e300, 'NSDate'), 'NSString') == 'x'",
        "CAST(CAST(-1e300, 'NSDate'), 'NSString') == 'x'",
        "CAST(CAST(CAST('nan', 'NSNumber'), 'NSDate'), 'NSString') == 'x'",
        "-9223372036854775808 / -1 == 0",
        "modulus:by:(-9223372036854775808, -1) == 0",
        "abs:(-9223372036854775808) < 0",
        "9223372036854775807 + 1 < 0",
        "1e308 * 10 > 0",
        "bitwiseAnd:with:(1e300, 1) == 0",
        "1 << 64 == 0",
        "1 >> -1 == 0",
        "CAST('1e999', 'NSDecimalNumber') > 0",
        "CAST(1e300, 'NSDecimalNumber') > 0",
        "CAST(1e330, 'NSDecimalNumber') > 0",
        "CAST(-1e330, 'NSDecimalNumber') > 0",
        "CAST(CAST('nan', 'NSNumber'), 'NSDecimalNumber') > 0",
        "CAST(1e-300, 'NSDecimalNumber') > 0",
        "CAST('1e100', 'NSDecimalNumber') * CAST('1e100', 'NSDecimalNumber') > 0",
        "CAST('1e100', 'NSDecimalNumber') / CAST('1e-100', 'NSDecimalNumber') > 0",
        "CAST('-1e100', 'NSDecimalNumber') - CAST('1e100', 'NSDecimalNumber') * CAST('1e30', 'NSDecimalNumber') > 0",
        "modulus:by:(CAST('1e100', 'NSDecimalNumber'), CAST('1e-100', 'NSDecimalNumber')) > 0",
        "{CAST('200000000000000000000000000000000000000e127', 'NSDecimalNumber'), CAST('2e165', 'NSDecimalNumber')}.@sum > 0",
        "{1, 2, 3}[-1] == 1",
        "{1, 2, 3}[9223372036854775807] == 1",
        "randomn:(0) == 0",
        "SELF MATCHES ''",
        "SELF LIKE ''",
        "median:({}) == 1",
        "stddev:({}) == 1",
        "sqrt:(-1) == 1",
        "length:(nil) == 0",
    ])
    func edge(_ format: String) throws {
        let p = try PredicateNode(format: format)
        do {
            _ = try p.evaluate(on: PredicateValue.string("x"))
        } catch {
            #expect(!error.message.isEmpty)
        }
    }

    @Test("a decimal out of range is an arithmetic error naming it; a tiny one is 0")
    func decimalRange() throws {
        func failure(_ format: String) throws -> PredicateEvaluationError? {
            do { _ = try PredicateNode(format: format).evaluate(on: PredicateValue.null); return nil }
            catch let error as PredicateEvaluationError { return error }
        }
        let infinite = try #require(try failure("CAST(1e330, 'NSDecimalNumber') > 0"))
        #expect(infinite.kind == .arithmetic)
        #expect(infinite.message.hasPrefix("inf cannot be a decimal number"))
        #expect(infinite.hint?.contains("NSNumber") == true)
        let product = try #require(try failure("CAST('1e100', 'NSDecimalNumber') * CAST('1e30', 'NSDecimalNumber') > 0"))
        #expect(product.message == "decimal overflow: 1e100 * 1e30 is outside the decimal range")
        // 2e165 is within the decimal range (Foundation reads it only with 38 digits before the
        // exponent); twice it is not.
        let big = "CAST('200000000000000000000000000000000000000e127', 'NSDecimalNumber')"
        let sum = try #require(try failure("{\(big), \(big)}.@sum > 0"))
        #expect(sum.message.hasPrefix("decimal overflow: the @sum of these decimals"))
        #expect(try failure("{\(big), 1}.@sum > 0") == nil)
        #expect(try PredicateNode(format: "{\(big), \(big)}.@avg > 1e165").evaluate(on: PredicateValue.null))
        #expect(try PredicateNode(format: "CAST(1e-300, 'NSDecimalNumber') == 0").evaluate(on: PredicateValue.null))
        // A decimal compares with a double too small for a decimal as doubles do.
        #expect(try PredicateNode(format: "CAST(0, 'NSDecimalNumber') < 1e-200").evaluate(on: PredicateValue.null))
        #expect(try PredicateNode(format: "CAST(0, 'NSDecimalNumber') > -1e-200").evaluate(on: PredicateValue.null))
    }

    @Test("an absurd date prints as seconds instead of trapping")
    func absurdDate() {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1e300)).hasSuffix("seconds since 2001-01-01T00:00:00Z"))
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.5Z")
        // Sub-microsecond parts are kept, in the digits that read back as the same date.
        let late = Date(timeIntervalSince1970: 1000.9999996)
        #expect(ISO8601.string(from: late).hasPrefix("1970-01-01T00:16:40.99999"))
        #expect(ISO8601.date(from: ISO8601.string(from: late)) == late)
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 0.000_01)) == "1970-01-01T00:00:00.00001Z")
    }

    @Test("deep JSON is an error, not a stack overflow")
    func deepJSON() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONReadError.self) { try JSONReader.value(from: deep) }
    }
}
