import Foundation
import Testing
import PQL

/// The typed accessors of `PredicateValue`: each is nil for other kinds; numbers read as one
/// kind where the type holds them exactly.
@Suite("PredicateValue typed accessors")
struct PredicateValueAccessorTests {
    static let date = Date(timeIntervalSinceReferenceDate: 12.5)

    @Test("each accessor reads its own case")
    func ownCase() {
        #expect(PredicateValue.bool(true).boolValue == true)
        #expect(PredicateValue.int(42).intValue == 42)
        #expect(PredicateValue.double(2.5).doubleValue == 2.5)
        #expect(PredicateValue.decimal(Decimal(string: "0.1")!).decimalValue == Decimal(string: "0.1"))
        #expect(PredicateValue.string("x").stringValue == "x")
        #expect(PredicateValue.date(Self.date).dateValue == Self.date)
        #expect(PredicateValue.data(Data([1, 2])).dataValue == Data([1, 2]))
        #expect(PredicateValue.array([1, "a"]).arrayValue == [.int(1), .string("a")])
        #expect(PredicateValue.set([1]).setElements == [.int(1)])
        #expect(PredicateValue.dictionary(["k": 1]).dictionaryValue == ["k": .int(1)])
    }

    @Test("other kinds are nil")
    func otherKinds() {
        let values: [PredicateValue] = [.null, .string("1"), .date(Self.date), .data(Data()), .array([1]), .set([1]), .dictionary([:])]
        for v in values {
            #expect(v.intValue == nil && v.doubleValue == nil && v.decimalValue == nil && v.boolValue == nil, "\(v)")
        }
        #expect(PredicateValue.int(1).boolValue == nil)
        #expect(PredicateValue.int(1).stringValue == nil)
        #expect(PredicateValue.set([1]).arrayValue == nil)
        #expect(PredicateValue.array([1]).setElements == nil)
        #expect(PredicateValue.null.stringValue == nil && PredicateValue.null.dateValue == nil && PredicateValue.null.dataValue == nil
                && PredicateValue.null.arrayValue == nil && PredicateValue.null.dictionaryValue == nil)
    }

    @Test("numbers convert when the type holds them exactly")
    func numbers() {
        #expect(PredicateValue.double(42).intValue == 42)
        #expect(PredicateValue.double(4.2).intValue == nil)
        #expect(PredicateValue.double(.nan).intValue == nil)
        #expect(PredicateValue.double(1e300).intValue == nil)
        #expect(PredicateValue.decimal(Decimal(string: "7")!).intValue == 7)
        #expect(PredicateValue.decimal(Decimal(string: "7.5")!).intValue == nil)
        #expect(PredicateValue.decimal(Decimal(string: "1e30")!).intValue == nil)
        #expect(PredicateValue.bool(true).intValue == 1)
        #expect(PredicateValue.bool(false).doubleValue == 0)
        #expect(PredicateValue.int(3).doubleValue == 3)
        #expect(PredicateValue.int(7).decimalValue == 7)
        #expect(PredicateValue.double(.infinity).decimalValue == nil)
        #expect(PredicateValue.int(.max).decimalValue == Decimal(Int64.max))
    }
}
