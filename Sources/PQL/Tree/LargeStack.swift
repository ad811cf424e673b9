#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs work on a deeply nested input — parsing it, compiling its tree for the evaluator or for
/// SQL — on a thread with a stack large enough for the nesting limits, so deep input is an error
/// or a result, never a stack overflow, whatever thread the caller is on.
///
/// Why: the caller's stack may be small. Apple's secondary threads and the threads of Swift's
/// cooperative pool (libdispatch workers, on Linux too) have 512 KiB; a debug build spends up to
/// 28 KiB of stack per nested call in the parser and 21 KiB per level in the SQL compiler (about
/// 1.3× that under the thread sanitizer), so a 23-level `abs(abs(…))` or a 63-term sum would
/// overflow such a thread. The measured figures are in `Tests/PQLTests/SmallStackTests.swift`.
///
/// A joined POSIX thread rather than Foundation's `Thread`: `pthread_join` returns only once
/// the thread has exited, so nothing of the work (its closure, its result) outlives the call.
/// With `Thread` and a semaphore the thread was still tearing down, holding the result, when
/// the caller went on; the leak sanitizer reported that, and it raced with the next parse.
package enum LargeStack {
    /// 16 MiB: the deepest trees the limits admit need under 2 MiB in a debug build with the
    /// thread sanitizer; the rest is margin. Pages are only touched as they are used.
    package static let size = 16 << 20

    /// Runs `body` on a large stack if `needed`, else here. Nested calls run inline: the
    /// large thread already has the room.
    package static func run<T, E: Error>(if needed: Bool, _ body: @escaping () throws(E) -> T) throws(E) -> T {
        guard needed, !isOnLargeStack else { return try body() }
        let box = ResultBox<T, E>(body)
        let started: Bool = {
            var attributes = pthread_attr_t()
            guard pthread_attr_init(&attributes) == 0 else { return false }
            defer { pthread_attr_destroy(&attributes) }
            guard pthread_attr_setstacksize(&attributes, size) == 0 else { return false }
            // The thread borrows the box through a retained pointer it releases itself.
            let context = Unmanaged.passRetained(box as AnyObject).toOpaque()
            #if canImport(Darwin)
            var thread: pthread_t?
            #else
            var thread = pthread_t()
            #endif
            guard pthread_create(&thread, &attributes, { context in
                let object = Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue()
                LargeStack.isOnLargeStack = true
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
        // Without a thread (resources exhausted) the work runs here: the recursion limits
        // still hold, only the margin for small stacks is smaller.
        guard started else { return try body() }
        return try box.result!.get()
    }

    /// Whether this thread is one of ours (a thread-local flag; a new thread starts without it).
    /// Without a key (the process used them all up) nested calls start threads of their own.
    package private(set) static var isOnLargeStack: Bool {
        get { flagKey.map { pthread_getspecific($0) != nil } ?? false }
        set { if let key = flagKey { pthread_setspecific(key, newValue ? UnsafeRawPointer(bitPattern: 1) : nil) } }
    }

    private static let flagKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    private protocol Runnable: AnyObject { func runBody() }

    /// Hands the body to the large thread and its result back; `pthread_join` orders the
    /// thread's write before the caller's read.
    private final class ResultBox<T, E: Error>: Runnable, @unchecked Sendable {
        let body: () throws(E) -> T
        var result: Result<T, E>?
        init(_ body: @escaping () throws(E) -> T) { self.body = body }
        func runBody() {
            do throws(E) { result = .success(try body()) } catch { result = .failure(error) }
        }
    }
}
