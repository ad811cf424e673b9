import Foundation

/// Runs the parse of deeply nested input on a thread with a stack large enough for the
/// nesting limits, so deep input is an error or a tree — never a stack overflow — whatever
/// thread the caller is on (Apple's secondary threads have 512 KiB; debug builds use several
/// KiB per nesting level).
enum DeepInputThread {
    /// Nesting above which the parse moves to the large stack.
    static let threshold = 24
    static let stackSize = 16 << 20

    static func run<T>(if deep: Bool, _ body: @escaping () throws(PredicateFormatError) -> T) throws(PredicateFormatError) -> T {
        guard deep else { return try body() }
        // The caller blocks until the thread finishes, so nothing runs concurrently with the
        // body or the box: handing them over is safe though the compiler cannot prove it.
        let box = ResultBox<T>(body)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do throws(PredicateFormatError) { box.result = .success(try box.body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
        done.wait()
        return try box.result!.get()
    }

    /// Hands the result from the parsing thread to the waiting one; the semaphore orders the
    /// write before the read.
    private final class ResultBox<T>: @unchecked Sendable {
        let body: () throws(PredicateFormatError) -> T
        var result: Result<T, PredicateFormatError>?
        init(_ body: @escaping () throws(PredicateFormatError) -> T) { self.body = body }
    }
}
