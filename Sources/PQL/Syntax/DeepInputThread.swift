#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the parse of deeply nested input on a thread with a stack large enough for the
/// nesting limits, so deep input is an error or a tree — never a stack overflow — whatever
/// thread the caller is on (Apple's secondary threads have 512 KiB; debug builds use several
/// KiB per nesting level).
///
/// A joined POSIX thread rather than Foundation's `Thread`: `pthread_join` returns only once
/// the thread has exited, so nothing of the parse (its closure, its result) outlives the call.
/// With `Thread` and a semaphore the thread was still tearing down, holding the result, when
/// the caller went on; the leak sanitizer reported that, and it raced with the next parse.
enum DeepInputThread {
    /// Nesting above which the parse moves to the large stack.
    static let threshold = 24
    static let stackSize = 16 << 20

    static func run<T>(if deep: Bool, _ body: @escaping () throws(PredicateFormatError) -> T) throws(PredicateFormatError) -> T {
        guard deep else { return try body() }
        let box = ResultBox<T>(body)
        let started: Bool = {
            var attributes = pthread_attr_t()
            guard pthread_attr_init(&attributes) == 0 else { return false }
            defer { pthread_attr_destroy(&attributes) }
            guard pthread_attr_setstacksize(&attributes, stackSize) == 0 else { return false }
            // The thread borrows the box through a retained pointer it releases itself.
            let context = Unmanaged.passRetained(box as AnyObject).toOpaque()
            #if canImport(Darwin)
            var thread: pthread_t?
            #else
            var thread = pthread_t()
            #endif
            guard pthread_create(&thread, &attributes, { context in
                let object = Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue()
                (object as! Runnable).runBody()
                return nil
            }, context) == 0 else {
                Unmanaged<AnyObject>.fromOpaque(context).release()
                return false
            }
            #if canImport(Darwin)
            pthread_join(thread!, nil)
            #else
            pthread_join(thread, nil)
            #endif
            return true
        }()
        // Without a thread (resources exhausted) the parse runs here: the recursion limits
        // still hold, only the margin for small stacks is smaller.
        guard started else { return try body() }
        return try box.result!.get()
    }

    private protocol Runnable: AnyObject { func runBody() }

    /// Hands the body to the parsing thread and its result back; `pthread_join` orders the
    /// thread's write before the caller's read.
    private final class ResultBox<T>: Runnable, @unchecked Sendable {
        let body: () throws(PredicateFormatError) -> T
        var result: Result<T, PredicateFormatError>?
        init(_ body: @escaping () throws(PredicateFormatError) -> T) { self.body = body }
        func runBody() {
            do throws(PredicateFormatError) { result = .success(try body()) } catch { result = .failure(error) }
        }
    }
}
