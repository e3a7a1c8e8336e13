import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Limits on each connection, so that slow or idle clients cannot hold the hub's sockets.
struct ConnectionLimits: Sendable {
    /// From accept (or the end of the previous answer on the first request) to a complete head.
    var headerTimeout: TimeAmount
    /// Between the last byte of an answer reaching the socket and the next request's complete
    /// head; also (Linux) how long the peer may accept no byte of an answer.
    var idleTimeout: TimeAmount
    /// The slowest accepted request body, averaged from the head, after `headerTimeout`.
    var minBodyBytesPerSecond: Int
}

/// The open connections of one server, and which of them wait for a request (idle ones may be
/// closed to make room). One locked box per server.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        /// When it started waiting for a request head; nil while a request is in progress.
        var waitingSince: NIODeadline?
    }

    let maximum: Int
    private let entries = NIOLockedValueBox([ObjectIdentifier: Entry]())

    init(maximum: Int) { self.maximum = max(1, maximum) }

    /// Registers a new connection; at the limit, closes the connection that has waited longest
    /// for a request. False when every connection is busy (the new one must be closed).
    func admit(_ id: ObjectIdentifier, _ channel: any Channel) -> Bool {
        let (admitted, evicted) = entries.withLockedValue { entries -> (Bool, (any Channel)?) in
            var evicted: (any Channel)?
            if entries.count >= maximum {
                let waiting = entries.compactMap { key, entry in entry.waitingSince.map { (key, $0, entry.channel) } }
                guard let oldest = waiting.min(by: { $0.1 < $1.1 }) else { return (false, nil) }
                entries[oldest.0] = nil
                evicted = oldest.2
            }
            entries[id] = Entry(channel: channel, waitingSince: .now())
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        return admitted
    }

    func setWaiting(_ id: ObjectIdentifier, _ waiting: Bool) {
        entries.withLockedValue { $0[id]?.waitingSince = waiting ? .now() : nil }
    }

    func remove(_ id: ObjectIdentifier) {
        _ = entries.withLockedValue { $0.removeValue(forKey: id) }
    }

    var count: Int { entries.withLockedValue { $0.count } }
}

/// One per connection, after the HTTP codec: enforces ``ConnectionLimits``, takes part in the
/// ``ConnectionRegistry``, answers the HTTP parser's errors with the hub's JSON error body, and
/// puts a ``FileRegionSwapper`` above the encoder.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private let fileRegions: FileRegionTable?
    private let fastPath: DownloadFastPath?
    /// The parts of a request answered by the fast path are not passed on.
    private var swallowing = false
    /// What the connection is doing, and so what its watchdog checks.
    private enum Phase {
        /// Waiting for a request head until the deadline (header or idle timeout).
        case waiting(until: NIODeadline)
        /// Receiving a request body (its rate is checked once a second).
        case receiving
        /// The server is answering: no deadline here (the kernel drops a peer that stops reading).
        case answering
    }

    private var phase = Phase.waiting(until: .now())
    /// One scheduled check at a time; a request costs a state change, not a timer.
    private var timer: Scheduled<Void>?
    private var timerFires: NIODeadline?
    private var requestsStarted = 0
    private var responsesEnded = 0
    private var bodyStart = NIODeadline.now()
    private var bodyBytes = 0
    private var closing = false
    /// A request head has gone to the router and its end has not come yet.
    private var requestOpen = false

    init(limits: ConnectionLimits, registry: ConnectionRegistry, fileRegions: FileRegionTable?, fastPath: DownloadFastPath?) {
        self.limits = limits
        self.registry = registry
        self.fileRegions = fileRegions
        self.fastPath = fastPath
    }

    private var id: ObjectIdentifier { ObjectIdentifier(self) }

    func handlerAdded(context: ChannelHandlerContext) {
        guard registry.admit(id, context.channel) else {
            closing = true
            context.close(promise: nil)
            return
        }
        // The ticket swapper goes right above the HTTP/1 encoder, where bodies may be file regions.
        if let fileRegions, let encoder = try? context.pipeline.syncOperations.handler(type: HTTPResponseEncoder.self) {
            try? context.pipeline.syncOperations.addHandler(FileRegionSwapper(table: fileRegions), position: .after(encoder))
        }
        #if os(Linux)
        // An answer has no deadline of its own (a large model to a slow phone takes as long as it
        // takes), so a client that stops reading would hold it forever: the kernel drops a
        // connection whose peer has accepted no byte for the idle timeout (zero window or no ACK).
        let milliseconds = max(1, limits.idleTimeout.nanoseconds / 1_000_000)
        try? context.channel.syncOptions?.setOption(
            ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: CInt(TCP_USER_TIMEOUT))),
            value: SocketOptionValue(clamping: milliseconds))
        #endif
        let deadline = NIODeadline.now() + limits.headerTimeout
        phase = .waiting(until: deadline)
        schedule(context, at: deadline)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        registry.remove(id)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        registry.remove(id)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if swallowing {
            if case .end = part { swallowing = false }
            return
        }
        // Only between requests: an answer given here can never overtake one Hummingbird owes.
        if case .head(let head) = part, requestsStarted == responsesEnded, !closing,
            let answer = fastPath?.answer(head, peer: context.channel.remoteAddress?.ipAddress)
        {
            answerDirectly(context, answer)
            return
        }
        switch part {
        case .head(let head):
            requestsStarted += 1
            requestOpen = true
            registry.setWaiting(id, false)
            let hasBody =
                head.headerFields[.contentLength].map { $0 != "0" } ?? (head.headerFields[.transferEncoding] != nil)
            if hasBody && limits.minBodyBytesPerSecond > 0 {
                phase = .receiving
                bodyStart = .now()
                bodyBytes = 0
                schedule(context, at: .now() + .seconds(1))
            } else {
                phase = .answering
            }
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
        case .end:
            requestOpen = false
            if case .receiving = phase { phase = .answering }  // the answer is the server's business
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        responsesEnded += 1
        // The idle wait starts once the answer has been written to the socket, not when its end
        // was queued: a download's end is queued while most of the file is still waiting to go.
        let written = promise ?? context.eventLoop.makePromise()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.whenSuccess { handler.value.answerWritten(loopBound.value) }
        context.write(data, promise: written)
    }

    /// The last byte of an answer has reached the socket: wait for the next request, unless one
    /// has already started.
    private func answerWritten(_ context: ChannelHandlerContext) {
        guard responsesEnded >= requestsStarted, !closing else { return }
        registry.setWaiting(id, true)
        let deadline = NIODeadline.now() + limits.idleTimeout
        phase = .waiting(until: deadline)
        schedule(context, at: deadline)
    }

    private func answerDirectly(_ context: ChannelHandlerContext, _ answer: DownloadFastPath.Answer) {
        requestsStarted += 1
        swallowing = true
        registry.setWaiting(id, false)
        let written = context.eventLoop.makePromise(of: Void.self)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { result in
            if case .success = result {
                answer.finished(true)
                handler.value.answerWritten(loopBound.value)
            } else {
                answer.finished(false)
            }
        }
        responsesEnded += 1
        phase = .answering
        context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
        context.write(wrapOutboundOut(.body(answer.body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard error is HTTPParserError, !closing else { return context.fireErrorCaught(error) }
        closing = true
        if requestOpen {
            // The router already has this request. Its body must end in this error: Hummingbird
            // takes a stream that simply stops for the body's end, so an upload cut off by the
            // client (the parser's "invalid EOF state") or broken mid-body would look complete.
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        // The parser could not read a request: answer in the hub's JSON shape and close.
        let body = ByteBuffer(bytes: HubError.body(status: .badRequest, message: "malformed HTTP request"))
        var fields: HTTPFields = [.contentType: "application/json", .contentLength: String(body.readableBytes), .connection: "close"]
        fields.addHubSecurityHeaders()
        let head = HTTPResponse(status: .badRequest, headerFields: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }

    /// Makes sure a check runs at `deadline` or earlier (an earlier check re-schedules itself).
    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        if let fires = timerFires, fires <= deadline { return }
        timer?.cancel()
        timerFires = deadline
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) { [self] in
            timerFires = nil
            check(loopBound.value)
        }
    }

    /// Closes a connection past its deadline or below the minimum body rate; otherwise schedules
    /// the next check.
    private func check(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        switch phase {
        case .waiting(let until):
            if now >= until { context.close(promise: nil) } else { schedule(context, at: until) }
        case .receiving:
            let elapsed = now - bodyStart
            let seconds = Double(elapsed.nanoseconds) / 1e9
            if elapsed > limits.headerTimeout, Double(bodyBytes) < Double(limits.minBodyBytesPerSecond) * seconds {
                context.close(promise: nil)
            } else {
                schedule(context, at: now + .seconds(1))
            }
        case .answering:
            break  // re-armed when the answer ends
        }
    }
}
