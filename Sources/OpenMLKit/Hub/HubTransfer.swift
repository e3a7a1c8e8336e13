import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Limits every request to a hub obeys: how long it may take, how slow it may be, how large the
/// answer may be, and where it may be redirected.
public struct HubTransferLimits: Sendable, Equatable {
    /// The whole request, from sending to the last byte, must finish within this many seconds.
    public var timeout: TimeInterval
    /// Below this average rate (bytes per second, over ``rateWindow``) the transfer is given up;
    /// 0 disables the check.
    public var minimumBytesPerSecond: Int
    /// The window over which the rate is measured, in seconds (the first window starts when the
    /// request is sent).
    public var rateWindow: TimeInterval

    /// Limits.
    public init(timeout: TimeInterval, minimumBytesPerSecond: Int = 1024, rateWindow: TimeInterval = 20) {
        self.timeout = timeout
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.rateWindow = rateWindow
    }

    /// For JSON answers: 30 s in all.
    public static let metadata = HubTransferLimits(timeout: 30, minimumBytesPerSecond: 0)
    /// For model files: one hour in all, at least 1 KiB/s over every 20 s.
    public static let download = HubTransferLimits(timeout: 3600, minimumBytesPerSecond: 1024, rateWindow: 20)
}

/// Where a request may be redirected.
enum RedirectPolicy {
    /// Never: a redirect is an error (publish, delete, rollouts: a request that changes the hub
    /// is sent exactly where the user said).
    case never
    /// Within the same origin (scheme, host, port); to another origin only when the request
    /// carries no credentials.
    case sameOriginWithCredentials
}

/// One HTTP request to a hub, with the answer's body kept in memory (up to a cap) or appended to
/// a file (up to an exact size).
///
/// Everything a hostile or broken server can do ends in a ``ModelDownloadError``: a redirect that
/// would carry credentials to another origin, an answer larger than announced or than the cap, a
/// trickle slower than the minimum rate, a transfer past its deadline.
final class HubTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What happens to the answer's body.
    enum Sink {
        /// Kept in memory, at most `limit` bytes.
        case memory(limit: Int)
        /// A 200 or 206 answer is written to `url` (206 appended at `offset`, 200 from the
        /// start); at most `expectedTotal` bytes may end up in the file.
        case file(url: URL, offset: Int64, expectedTotal: Int64, progress: Progress)
    }

    private let request: URLRequest
    private let sink: Sink
    private let limits: HubTransferLimits
    private let redirects: RedirectPolicy
    /// What URLSession's delegate queue, the watchdog and the caller share, under one lock.
    private struct State {
        var handle: FileHandle?
        var body = Data()
        var written: Int64 = 0
        var allowedBytes: Int64 = .max
        var received: Int64 = 0
        var failure: ModelDownloadError?
        var response: HTTPURLResponse?
        var continuation: CheckedContinuation<(Data, HTTPURLResponse), Error>?
        var task: URLSessionDataTask?
        var timer: DispatchSourceTimer?
    }

    private let state = LockedBox(State())

    init(request: URLRequest, sink: Sink, limits: HubTransferLimits, redirects: RedirectPolicy) {
        var request = request
        // The inactivity timeout of URLSession; the deadline and rate checks below are ours.
        request.timeoutInterval = min(request.timeoutInterval, max(1, limits.timeout))
        self.request = request
        self.sink = sink
        self.limits = limits
        self.redirects = redirects
    }

    /// Sends the request and returns the status with the body (for a file sink, the body only
    /// of an error answer).
    func run(priority: Float = URLSessionTask.defaultPriority) async throws -> (Data, HTTPURLResponse) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request)
                task.priority = priority
                state.withLockedValue {
                    $0.continuation = continuation
                    $0.task = task
                }
                startWatchdog()
                task.resume()
            }
        } onCancel: {
            fail(.cancelled)
        }
    }

    /// Stops the transfer with `error` (the first failure wins).
    func fail(_ error: ModelDownloadError) {
        let task = state.withLockedValue { state -> URLSessionDataTask? in
            if state.failure == nil { state.failure = error }
            return state.task
        }
        task?.cancel()
    }

    private func startWatchdog() {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let start = Date()
        var windowStart = start
        var windowBytes: Int64 = 0
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let now = Date()
            let total = state.withLockedValue { $0.received }
            if now.timeIntervalSince(start) > limits.timeout {
                fail(.timedOut("no complete answer from the hub within \(Self.seconds(limits.timeout))"))
                return
            }
            guard limits.minimumBytesPerSecond > 0 else { return }
            if now.timeIntervalSince(windowStart) >= limits.rateWindow {
                let rate = Double(total - windowBytes) / now.timeIntervalSince(windowStart)
                if rate < Double(limits.minimumBytesPerSecond) {
                    fail(
                        .timedOut(
                            "the hub sent \(Int(rate)) bytes/s over the last \(Self.seconds(limits.rateWindow)), "
                                + "below the minimum of \(limits.minimumBytesPerSecond) bytes/s"))
                    return
                }
                windowStart = now
                windowBytes = total
            }
        }
        state.withLockedValue { $0.timer = timer }
        timer.resume()
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    // MARK: URLSession delegate

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let target = newRequest.url?.absoluteString ?? "?"
        // Refusing is answering nil: the task then ends with the redirect answer itself. (It must
        // not be cancelled here: FoundationNetworking traps on a redirect callback after cancel.)
        func refuse(_ message: String) {
            state.withLockedValue { if $0.failure == nil { $0.failure = .redirectRefused(message) } }
            completionHandler(nil)
        }
        switch redirects {
        case .never:
            refuse("the hub redirected this request to \(target); requests that change the hub are never redirected")
        case .sameOriginWithCredentials:
            if Self.sameOrigin(request.url, newRequest.url) || !carriesCredentials {
                completionHandler(newRequest)
            } else {
                refuse("the hub redirected to another origin (\(target)); the app key and admin token are never sent there")
            }
        }
    }

    private var carriesCredentials: Bool {
        request.value(forHTTPHeaderField: "Authorization") != nil || request.value(forHTTPHeaderField: "X-App-Key") != nil
    }

    static func sameOrigin(_ a: URL?, _ b: URL?) -> Bool {
        guard let a, let b, let schemeA = a.scheme?.lowercased(), let schemeB = b.scheme?.lowercased() else { return false }
        func port(_ url: URL, _ scheme: String) -> Int { url.port ?? (scheme == "https" ? 443 : 80) }
        return schemeA == schemeB && a.host?.lowercased() == b.host?.lowercased() && port(a, schemeA) == port(b, schemeB)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            fail(.invalidResponse("not an HTTP response"))
            return completionHandler(.cancel)
        }
        state.withLockedValue { $0.response = http }
        guard case .file(let url, let offset, let expectedTotal, let progress) = sink,
            http.statusCode == 200 || http.statusCode == 206
        else { return completionHandler(.allow) }  // an error answer: read its (capped) body
        let start = http.statusCode == 206 ? offset : 0
        let allowed = expectedTotal - start
        // A server announcing more than the version's size is refused before a byte is written.
        if let announced = http.value(forHTTPHeaderField: "Content-Length").flatMap(Int64.init), announced > allowed {
            fail(.oversizedAnswer("the hub announced \(announced) bytes where the version has \(allowed) left; nothing was written"))
            return completionHandler(.cancel)
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(start))
            try handle.seek(toOffset: UInt64(start))
            if start == 0 { progress.completedUnitCount = 0 }
            state.withLockedValue {
                $0.handle = handle
                $0.allowedBytes = allowed
            }
            completionHandler(.allow)
        } catch {
            fail(.storage("cannot write the partial download: \(error.localizedDescription)"))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLockedValue { state in
            guard state.failure == nil else { return }
            state.received += Int64(data.count)
            if let handle = state.handle, case .file(_, _, _, let progress) = sink {
                guard state.written + Int64(data.count) <= state.allowedBytes else {
                    state.failure = .oversizedAnswer(
                        "the hub sent more than the \(state.allowedBytes) bytes the version has; stopped there")
                    state.task?.cancel()
                    return
                }
                do {
                    try handle.write(contentsOf: data)
                    state.written += Int64(data.count)
                    progress.completedUnitCount += Int64(data.count)
                } catch {
                    state.failure = .storage("cannot write the partial download: \(error.localizedDescription)")
                    state.task?.cancel()
                }
                return
            }
            let limit: Int
            switch sink {
            case .memory(let cap): limit = cap
            case .file: limit = 64 * 1024  // an error answer's body
            }
            guard state.body.count + data.count <= limit else {
                state.failure = .oversizedAnswer("the hub's answer is larger than \(limit) bytes; stopped there")
                state.task?.cancel()
                return
            }
            state.body.append(data)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let (failure, response, body, continuation) = state.withLockedValue { state in
            state.timer?.cancel()
            state.timer = nil
            try? state.handle?.synchronize()
            try? state.handle?.close()
            state.handle = nil
            let continuation = state.continuation
            state.continuation = nil
            state.task = nil
            return (state.failure, state.response, state.body, continuation)
        }
        var outcome = failure
        if outcome == nil, let error {
            outcome = .network(HubHTTP.describe(error, request.url))
        }
        if let outcome {
            continuation?.resume(throwing: outcome)
        } else if let response {
            continuation?.resume(returning: (body, response))
        } else {
            continuation?.resume(throwing: ModelDownloadError.invalidResponse("no HTTP response"))
        }
    }
}
