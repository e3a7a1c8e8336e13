import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP transfer of a model version into a partial file, appending from its current end.
///
/// A 206 answer is appended at the requested offset; a 200 answer (the hub sent the whole file)
/// truncates the file first. Bytes go to disk as they arrive, so an interrupted transfer leaves
/// a partial file that the next attempt resumes with `Range`.
final class RangeDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let request: URLRequest
    private let partialURL: URL
    private let offset: Int64
    private let progress: Progress
    private let lock = NSLock()
    private var handle: FileHandle?
    private var failure: ModelDownloadError?
    private var errorBody = Data()
    private var status = 0
    private var continuation: CheckedContinuation<Void, Error>?
    private var task: URLSessionDataTask?

    init(request: URLRequest, partialURL: URL, offset: Int64, progress: Progress) {
        self.request = request
        self.partialURL = partialURL
        self.offset = offset
        self.progress = progress
    }

    /// Runs the transfer to completion; throws ``ModelDownloadError`` on failure or cancellation.
    func run(priority: Float) async throws {
        let session = URLSession(configuration: HubHTTP.session.configuration, delegate: self, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let task = session.dataTask(with: request)
                task.priority = priority
                lock.withLock {
                    self.continuation = continuation
                    self.task = task
                }
                task.resume()
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops the transfer; ``run(priority:)`` then throws ``ModelDownloadError/cancelled``.
    func cancel() {
        let task = lock.withLock { () -> URLSessionDataTask? in
            if failure == nil { failure = .cancelled }
            return self.task
        }
        task?.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        lock.withLock { self.status = status }
        guard status == 200 || status == 206 else {
            completionHandler(.allow)  // read the error body for the hub's message
            return
        }
        do {
            let handle = try FileHandle(forWritingTo: partialURL)
            if status == 206 {
                try handle.truncate(atOffset: UInt64(offset))
                try handle.seek(toOffset: UInt64(offset))
            } else {
                try handle.truncate(atOffset: 0)
                progress.completedUnitCount = 0
            }
            lock.withLock { self.handle = handle }
            completionHandler(.allow)
        } catch {
            lock.withLock { failure = .storage("cannot write \(partialURL.path): \(error.localizedDescription)") }
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        defer { lock.unlock() }
        guard let handle else {
            if errorBody.count < 4096 { errorBody.append(data.prefix(4096 - errorBody.count)) }
            return
        }
        do {
            try handle.write(contentsOf: data)
            progress.completedUnitCount += Int64(data.count)
        } catch {
            failure = .storage("cannot write \(partialURL.path): \(error.localizedDescription)")
            task?.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        try? handle?.synchronize()
        try? handle?.close()
        handle = nil
        var outcome: ModelDownloadError? = failure
        if outcome == nil, let error {
            outcome = .network(HubHTTP.describe(error, request.url))
        }
        if outcome == nil, status != 200, status != 206 {
            outcome = HubHTTP.error(status: status, body: errorBody, url: request.url)
        }
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        if let outcome { continuation?.resume(throwing: outcome) } else { continuation?.resume() }
    }
}
