#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A cancellation that reaches SQLite statements running outside any Swift task (where
/// `Task.isCancelled` is false): a record stream's fetch runs on a thread of the store's read
/// queue, and its consumer's cancellation (or going away) sets this flag, which the
/// connection's progress handler (every few thousand SQLite steps) finds for the thread.
final class StatementCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    func cancel() { flag.store(true, ordering: .releasing) }

    /// The error a cancelled call throws.
    static var error: StoreError {
        StoreError(.cancelled, "the store operation was cancelled", hint: "its task was cancelled; nothing it would have written was kept")
    }

    /// The cancellation of the call running on this thread, if it has one.
    static var current: StatementCancellation? {
        guard let key, let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<StatementCancellation>.fromOpaque(p).takeUnretainedValue()
    }

    /// Runs `body` with this cancellation as the thread's current one (restoring the previous one).
    func installed<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let key = Self.key else { return try body() }
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try withExtendedLifetime(self) { () throws(E) -> T in try body() }
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()
}
