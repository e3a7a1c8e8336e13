import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Writes one access-log line per request when its answer has been sent to the last byte (or
/// broken off), and counts it in the metrics.
///
/// Fields: time, client address (see ``client(peer:forwardedFor:trustedProxies:)``), method,
/// path, status, body bytes sent, duration, and the model and version the path
/// names, and the `Range` asked for. Query strings are not logged (they may carry the app key).
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext
    let format: AccessLogFormat
    let log: (@Sendable (String) -> Void)?
    let trustedProxies: Set<String>
    let metrics: HubMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        let route = context.endpointPath ?? "unmatched"
        let entry = Entry(
            time: Date(), client: clientAddress(request, context), method: request.method.rawValue, path: request.uri.path,
            status: response.status.code, range: request.headers[.range].map { String($0.prefix(100)) }, model: context.parameters.get("name"),
            version: context.parameters.get("version").flatMap(Int.init))
        if request.method == .head {
            // The router drops a HEAD answer's body after this returns: log it now.
            let duration = ContinuousClock.now - start
            metrics.request(route: route, method: entry.method, status: entry.status, duration: duration)
            log?(entry.line(format: format, bytes: 0, duration: duration, broken: false))
            return response
        }
        let body = response.body
        let log = self.log
        let format = self.format
        let metrics = self.metrics
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            let bytes = ByteCount()
            var failure: Error?
            do { try await body.write(CountingWriter(inner: writer, bytes: bytes)) } catch { failure = error }
            let duration = ContinuousClock.now - start
            metrics.request(route: route, method: entry.method, status: entry.status, duration: duration)
            // A complete answer sent its announced length (a sendfile ticket stands for the file's
            // bytes); a broken one, what was handed over before it broke.
            let sent = failure == nil ? Int64(body.contentLength ?? Int(bytes.value)) : failure is FileRegionBroken ? 0 : bytes.value
            log?(entry.line(format: format, bytes: sent, duration: duration, broken: failure != nil))
            if let failure { throw failure }
        }
        return response
    }

    private func clientAddress(_ request: Request, _ context: Context) -> String {
        Self.client(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!],
            trustedProxies: trustedProxies)
    }

    /// The TCP peer, or — when the peer is a trusted proxy — the nearest address in
    /// `X-Forwarded-For` that is not itself a trusted proxy, read from the right: entries further
    /// left were written by the client and may be forged.
    static func client(peer: String?, forwardedFor: String?, trustedProxies: Set<String>) -> String {
        let peer = peer ?? "-"
        guard trustedProxies.contains(peer), let forwarded = forwardedFor else { return peer }
        for entry in forwarded.split(separator: ",").reversed() {
            let address = entry.trimmingCharacters(in: .whitespaces)
            guard !address.isEmpty, address.count <= 64, address.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" })
            else { return peer }
            if !trustedProxies.contains(address) { return address }
        }
        return peer
    }

    struct Entry {
        /// `2026-11-25T15:19:09.967Z`, written by hand: the formatter cost as much as the rest of
        /// the line.
        static func timestamp(_ date: Date) -> String {
            let since = date.timeIntervalSince1970
            var seconds = time_t(since.rounded(.down))
            let millis = min(999, max(0, Int((since - Double(seconds)) * 1000)))
            var parts = tm()
            gmtime_r(&seconds, &parts)
            func pad(_ value: Int32, _ width: Int) -> String {
                let text = String(value)
                return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
            }
            return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
                + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
        }
        let time: Date
        let client: String
        let method: String
        let path: String
        let status: Int
        let range: String?
        let model: String?
        let version: Int?

        func line(format: AccessLogFormat, bytes: Int64, duration: Duration, broken: Bool) -> String {
            let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
            let milliseconds = Double(microseconds) / 1000
            let stamp = Self.timestamp(time)
            switch format {
            case .text:
                let tenths = (microseconds + 50) / 100
                var line = "\(stamp) \(client) \(method) \(path) \(status) \(bytes) B \(tenths / 10).\(tenths % 10) ms"
                if let range { line += " range=\(range.replacingOccurrences(of: " ", with: ""))" }
                if let model { line += " model=\(model)" }
                if let version { line += " version=\(version)" }
                if broken { line += " (answer broken off)" }
                return line
            case .json:
                var object: [String: Any] = [
                    "time": stamp, "client": client, "method": method, "path": path, "status": status, "bytes": bytes,
                    "durationMs": (milliseconds * 1000).rounded() / 1000,
                ]
                if let range { object["range"] = range }
                if let model { object["model"] = model }
                if let version { object["version"] = version }
                if broken { object["broken"] = true }
                let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
                return String(decoding: data, as: UTF8.self)
            }
        }
    }
}

/// A box for a byte count shared between the writer the body writes to and the log.
final class ByteCount: Sendable {
    private let total = NIOLockedValueBox(Int64(0))
    func add(_ n: Int) { total.withLockedValue { $0 += Int64(n) } }
    var value: Int64 { total.withLockedValue { $0 } }
}

/// Passes a body through and counts its bytes.
struct CountingWriter: ResponseBodyWriter {
    var inner: any ResponseBodyWriter
    let bytes: ByteCount

    mutating func write(_ buffer: ByteBuffer) async throws {
        bytes.add(buffer.readableBytes)
        try await inner.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await inner.finish(trailingHeaders)
    }
}
