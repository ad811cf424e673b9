import CSQLite
import Foundation

/// Read-only connections to a database, so that fetches run side by side with each other and
/// (in WAL mode) with a writer: each reader sees the last committed state when its statement starts.
///
/// A connection is taken for one read and given back; when none is idle a new one opens
/// (never a wait, so a fetch inside another fetch's row callback cannot deadlock), and at most
/// ``idleLimit`` idle connections are kept.
final class ReaderPool: @unchecked Sendable {
    // @unchecked: `idle` and `busy` are only touched under `lock`; each connection is used by
    // one thread at a time (the one that took it), and `interrupt` is thread-safe in SQLite.
    private let path: String
    private let access: SQLiteConnection.Access
    private let lock = NSLock()
    private var idle: [SQLiteConnection] = []
    private var busy: [ObjectIdentifier: SQLiteConnection] = [:]
    static let idleLimit = 8

    init(path: String, access: SQLiteConnection.Access) {
        self.path = path
        self.access = access
    }

    func withReader<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let connection = try take()
        defer { give(connection) }
        return try body(connection)
    }

    private func take() throws(StoreError) -> SQLiteConnection {
        lock.lock()
        if let c = idle.popLast() {
            busy[ObjectIdentifier(c)] = c
            lock.unlock()
            return c
        }
        lock.unlock()
        let c = try SQLiteConnection(path: path, access: access)
        lock.lock()
        busy[ObjectIdentifier(c)] = c
        lock.unlock()
        return c
    }

    private func give(_ c: SQLiteConnection) {
        lock.lock()
        defer { lock.unlock() }
        busy[ObjectIdentifier(c)] = nil
        if idle.count < Self.idleLimit { idle.append(c) }
    }

    /// Interrupts every read running now.
    func interrupt() {
        lock.lock()
        defer { lock.unlock() }
        for c in busy.values { c.interrupt() }
    }

    /// Closes the idle connections (before the journal mode changes, which needs the file to itself).
    func closeIdle() {
        lock.lock()
        defer { lock.unlock() }
        for c in idle { c.close() }
        idle.removeAll()
    }

    /// Closes the connections (the store is closing, so no read is running).
    func closeAll() { closeIdle() }
}
