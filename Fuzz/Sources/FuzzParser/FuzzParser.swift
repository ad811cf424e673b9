import FuzzSupport
import PQL

/// Parser fuzz target: any bytes, as a predicate and as an expression. A parse either gives a
/// tree whose printed form parses back to the same text, or a typed error with a position
/// inside the input; never a crash, a hang or a leak.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    do {
        let tree = try PredicateNode(utf8: bytes)
        checkRoundTrip(tree, input: text)
    } catch {
        checkPosition(error, in: bytes.count, input: text)
    }
    do {
        let expression = try ExpressionNode(format: text)
        _ = expression.description
    } catch {
        checkPosition(error, in: text.utf8.count, input: text)
    }
    return 0
}

/// An error's range lies inside the text it reports on, and it carries a message.
func checkPosition(_ error: PredicateFormatError, in length: Int, input: String) {
    if error.message.isEmpty { fuzzFailure("an error without a message", input: input) }
    let r = error.range
    if r.offset < 0 || r.length < 0 || r.offset + r.length > length || r.line < 1 || r.column < 1 {
        fuzzFailure("error range \(r.offset)+\(r.length) (\(r)) outside the \(length)-byte input: \(error)", input: input)
    }
    _ = error.rendered
}
