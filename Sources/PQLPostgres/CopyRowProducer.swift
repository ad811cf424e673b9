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
    convenience init(types: [AttributeType],
                     rows: @escaping @Sendable (_ emit: ([PredicateValue]) throws(StoreError) -> Void) throws(StoreError) -> Void) {
        self.init(types: types) { (sink: inout CopyRowSink) throws(StoreError) in
            try rows { (row) throws(StoreError) in
                try sink.encoder.append(row)
                try sink.rowEnded()
            }
        }
    }

    /// Starts encoding: `encode` writes each row's fields into the sink's encoder, and calls
    /// `rowEnded()` after each row (a row source that encodes its values itself, without
    /// making an array of them per row: `insertRows`).
    init(types: [AttributeType], encode: @escaping @Sendable (_ sink: inout CopyRowSink) throws(StoreError) -> Void) {
        (chunks, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        let thread = Thread { [self] in
            var sink = CopyRowSink(encoder: CopyTextEncoder(types: types), producer: self)
            do throws(StoreError) {
                try encode(&sink)
                if !sink.encoder.bytes.isEmpty { try send(&sink.encoder) }
                produced.store(sink.rows, ordering: .releasing)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.start()
    }

    /// The number of rows read, once `chunks` has ended.
    var rowCount: Int { produced.load(ordering: .acquiring) }

    fileprivate func send(_ encoder: inout CopyTextEncoder) throws(StoreError) {
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

/// Where a row source encodes its rows: the encoder, handed to the server in chunks as it fills.
struct CopyRowSink {
    var encoder: CopyTextEncoder
    fileprivate let producer: CopyRowProducer
    /// The rows ended so far.
    private(set) var rows = 0

    /// The row just encoded is complete: counted, and the chunk sent when it is full (waiting
    /// while the server has four to take).
    mutating func rowEnded() throws(StoreError) {
        rows += 1
        if encoder.bytes.count >= CopyRowProducer.chunkSize { try producer.send(&encoder) }
    }
}
