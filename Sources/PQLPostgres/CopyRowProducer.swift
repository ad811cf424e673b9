import Foundation
import PQL
import PQLStore
import Synchronization

/// Reads rows on a thread of its own (PQL's import readers are synchronous, and a file must not
/// hold a thread of Swift's cooperative pool), encodes them for `COPY` and hands them over in
/// chunks of about a megabyte. At most four chunks wait for the server, so a slow server slows
/// the reader instead of filling memory.
final class CopyRowProducer: Sendable {
    let chunks: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let slots = DispatchSemaphore(value: 4)
    private let stopped = Atomic<Bool>(false)
    private let produced = Atomic<Int>(0)

    static let chunkSize = 1 << 20

    /// Starts reading: `rows` gets a function to call with each row (an import's values, in
    /// the order of `types`).
    init(types: [AttributeType],
         rows: @escaping @Sendable (_ emit: ([PredicateValue]) throws(StoreError) -> Void) throws(StoreError) -> Void) {
        (chunks, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        let thread = Thread { [self] in
            var encoder = CopyTextEncoder(types: types)
            var n = 0
            do throws(StoreError) {
                try rows { (row) throws(StoreError) in
                    try encoder.append(row)
                    n += 1
                    if encoder.bytes.count >= Self.chunkSize { try send(&encoder) }
                }
                if !encoder.bytes.isEmpty { try send(&encoder) }
                produced.store(n, ordering: .releasing)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.start()
    }

    /// The number of rows read, once `chunks` has ended.
    var rowCount: Int { produced.load(ordering: .acquiring) }

    private func send(_ encoder: inout CopyTextEncoder) throws(StoreError) {
        slots.wait()
        if stopped.load(ordering: .acquiring) {
            throw StoreError(.cancelled, "the import stopped", hint: "the COPY it fed failed or was cancelled")
        }
        continuation.yield(encoder.bytes)
        encoder.bytes.removeAll(keepingCapacity: true)
    }

    /// The consumer took a chunk: the reader may make another.
    func took() { slots.signal() }

    /// The consumer gives up: the reader stops at its next chunk.
    func stop() {
        stopped.store(true, ordering: .releasing)
        slots.signal()
    }
}
