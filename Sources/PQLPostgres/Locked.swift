import Foundation

/// A value behind a lock, with `Synchronization.Mutex`'s `withLock`, on a pthread mutex
/// (`NSLock`). Not `Mutex` itself: on Linux, Swift 6.3's `Mutex` locks inside the standard
/// library, which the thread sanitizer does not instrument, so it sees no order between
/// accesses under the lock from two threads and reports a race on each (CI's TSan pass did, on
/// the state NIO's event loop threads share when connections close; ten lines of two threads
/// and one `Mutex` show it too). The sanitizer knows pthread mutexes.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
