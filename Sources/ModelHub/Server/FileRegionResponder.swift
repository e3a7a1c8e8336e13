import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Sends model files with `sendfile` instead of copying them through the process.
///
/// Hummingbird's response writer takes byte buffers only. A download therefore writes a 24-byte
/// ticket — a per-process random prefix and an entry number — as its body, and registers the open
/// file and range under that number here; ``FileRegionSwapper``, a handler right above the HTTP/1
/// encoder, exchanges the ticket for a `FileRegion` of the file, which NIO's socket channel
/// writes with `sendfile`. The ticket cannot come from a client (it only ever travels outwards),
/// and a ticket that no longer names an entry is an error, never bytes of another file.
final class FileRegionTable: Sendable {
    struct Entry: Sendable {
        let handle: NIOFileHandle
        let offset: Int
        let length: Int
        /// Called with true once every byte of the range has been written to the socket, with
        /// false when the write failed (the connection broke).
        let finished: @Sendable (Bool) -> Void
        var registered = NIODeadline.now()
    }

    /// The ticket's first 16 bytes: random per process.
    let prefix: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
    private let state = NIOLockedValueBox((next: UInt64(1), entries: [UInt64: Entry]()))

    /// Registers an open file's range and returns the ticket to write as the body.
    func register(_ entry: Entry) -> ByteBuffer {
        let (id, stale) = state.withLockedValue { state -> (UInt64, [Entry]) in
            let id = state.next
            state.next += 1
            state.entries[id] = entry
            // A ticket whose connection closed before it reached the swapper is never taken:
            // its file is closed here, a few minutes later.
            guard id % 64 == 0 else { return (id, []) }
            let cutoff = NIODeadline.now() - .minutes(5)
            let stale = state.entries.filter { $0.value.registered < cutoff }
            for key in stale.keys { state.entries[key] = nil }
            return (id, Array(stale.values))
        }
        for entry in stale {
            try? entry.handle.close()
            entry.finished(false)
        }
        var buffer = ByteBufferAllocator().buffer(capacity: 24)
        buffer.writeBytes(prefix)
        buffer.writeInteger(id)
        return buffer
    }

    /// The entry a ticket names, removed from the table; nil when `buffer` is not a ticket.
    func take(_ buffer: ByteBuffer) -> Entry?? {
        guard buffer.readableBytes == 24, buffer.getBytes(at: buffer.readerIndex, length: 16) == prefix,
            let id = buffer.getInteger(at: buffer.readerIndex + 16, as: UInt64.self)
        else { return nil }
        return .some(state.withLockedValue { $0.entries.removeValue(forKey: id) })
    }
}

/// Exchanges download tickets for file regions on their way to the HTTP/1 encoder.
final class FileRegionSwapper: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let table: FileRegionTable

    init(table: FileRegionTable) { self.table = table }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .body(.byteBuffer(let buffer)) = unwrapOutboundIn(data), let ticket = table.take(buffer) else {
            return context.write(data, promise: promise)
        }
        guard let entry = ticket else {
            // A ticket without an entry: never send anything in its place.
            promise?.fail(ChannelError.ioOnClosedChannel)
            context.close(promise: nil)
            return
        }
        let region = FileRegion(fileHandle: entry.handle, readerIndex: entry.offset, endIndex: entry.offset + entry.length)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { result in
            try? entry.handle.close()
            switch result {
            case .success:
                entry.finished(true)
                promise?.succeed(())
            case .failure(let error):
                entry.finished(false)
                promise?.fail(error)
            }
        }
        context.write(wrapOutboundOut(.body(.fileRegion(region))), promise: written)
    }
}

/// Whether a sendfile answer was written to its last byte, awaited by the download route so that
/// its access-log line and duration come when the answer ends (or breaks off), not when the file
/// region was queued. The first `finish` wins.
final class RegionOutcome: Sendable {
    private let state = NIOLockedValueBox<(result: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

    func finish(_ ok: Bool) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Bool, Never>? in
            guard state.result == nil else { return nil }
            state.result = ok
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: ok)
    }

    func wait() async -> Bool {
        await withCheckedContinuation { continuation in
            let known = state.withLockedValue { state -> Bool? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}
