import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenMLKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HubServer {
    func latest(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let model = try await existingModel(context)
        let query = request.uri.queryParameters
        let installation = query.get("installation").map { String($0) } ?? request.headers[HTTPField.Name("X-Installation-ID")!]
        let groups = Set(query.getAll("group").flatMap { $0.split(separator: ",").map(String.init) })
        guard let version = RolloutAssignment.version(of: model, installationID: installation, groups: groups) else {
            throw HubError.notFound("model '\(model.name)' has no versions")
        }
        if matches(request.headers[.ifNoneMatch], version.entityTag) {
            return Response(status: .notModified, headers: [.eTag: version.entityTag])
        }
        return try json(version.withoutCount, etag: version.entityTag)
    }

    /// Serves one version's bytes. The version and its blob are read together, and the blob is
    /// opened before the answer starts: a delete racing the download either comes first (404)
    /// or cannot take the bytes away (the open descriptor keeps them).
    func download(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let name = try validName(context)
        let number = try versionNumber(context)
        let key = ModelVersionKey(name: name, version: number)
        let stored: StoredModelVersion
        var cachedBlob: OpenBlob?
        if let (cached, blob) = versionCache.get(key) {
            stored = cached
            cachedBlob = blob
        } else {
            guard let found = try await catalog.storedVersion(name: name, version: number) else {
                throw HubError.notFound("model '\(name)' has no version \(number)")
            }
            stored = found
        }
        let version = stored.version
        let size = version.size
        var headers: HTTPFields = [.eTag: version.entityTag, .acceptRanges: "bytes"]
        if matches(request.headers[.ifNoneMatch], version.entityTag) {
            return Response(status: .notModified, headers: headers)
        }
        // A resume names the version it started with; if that is not this one, send it whole.
        var rangeHeader = request.headers[.range]
        if let ifRange = request.headers[.ifRange], ifRange != version.entityTag { rangeHeader = nil }
        let part: ByteRange
        var status = HTTPResponse.Status.ok
        switch ByteRange.resolve(rangeHeader, size: size) {
        case .whole:
            part = ByteRange(start: 0, end: size - 1)
        case .partial(let range):
            part = range
            status = .partialContent
            headers[.contentRange] = "bytes \(range.start)-\(range.end)/\(size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            throw HubError(.rangeNotSatisfiable, "the range is outside the file's \(size) bytes", headers: headers)
        }
        headers[.contentType] = "application/octet-stream"
        headers[.contentLength] = String(max(0, part.length))
        if request.method == .head { return Response(status: status, headers: headers) }

        let blob: OpenBlob
        do {
            blob = try cachedBlob ?? OpenBlob(path: try blobs.filePath(forKey: stored.blobKey), expectedSize: size)
        } catch OpenBlob.Failure.missing {
            // Deleted (perhaps through another replica) since the version was looked up.
            versionCache.forget(key)
            throw HubError.notFound("model '\(name)' version \(number) was just deleted")
        } catch OpenBlob.Failure.wrongSize(let actual) {
            throw HubStorageError.io("blob \(stored.blobKey) has \(actual) bytes, the catalogue says \(size)")
        }
        if cachedBlob == nil { versionCache.put(key, stored, blob) }
        let rate = configuration.downloadBytesPerSecond
        let wholeFile = status == .ok
        let counter = downloads
        let metrics = self.metrics
        let length = part.length
        // A download counts once its last byte has been written to the socket (as nginx's
        // $request_completion); bytes count as they are written.
        let completed = downloadCompleted(name: name, version: number, bytes: length, wholeFile: wholeFile)
        let outcome = RegionOutcome()
        if rate == nil, length >= 16 * 1024, let regions = fileRegions,
            let ticket = blob.ticket(in: regions, part, { ok in
                if ok { completed() }
                outcome.finish(ok)
            })
        {
            // A ticket the closing connection never sends must not leave the answer waiting.
            context.channelClosed.whenComplete { _ in outcome.finish(false) }
            // sendfile: the file's bytes go from the page cache to the socket without a copy here.
            let body = ResponseBody(contentLength: Int(length)) { writer in
                try await writer.write(ticket)
                // The write returns once the region is queued; the access log and the duration
                // metric wait for its last byte, and a broken answer is logged as broken.
                guard await outcome.wait() else { throw FileRegionBroken() }
                try await writer.finish(nil)
            }
            return Response(status: status, headers: headers, body: body)
        }
        let body = ResponseBody(contentLength: Int(max(0, part.length))) { writer in
            var offset = part.start
            let end = part.end + 1
            let chunk = rate.map { max(1024, min(64 * 1024, $0 / 20)) } ?? 1 << 20
            var sent: Int64 = 0
            defer { metrics.downloadBytes(model: name, version: number, bytes: sent) }
            while offset < end {
                let want = Int(min(Int64(chunk), end - offset))
                let buffer = try blob.read(at: offset, count: want)
                try await writer.write(buffer)
                offset += Int64(want)
                sent += Int64(want)
                if let rate { try await Task.sleep(nanoseconds: UInt64(want) * 1_000_000_000 / UInt64(rate)) }
            }
            try await writer.finish(nil)
            if wholeFile {
                counter.add(name: name, version: number)
                metrics.downloadCompleted(model: name, version: number)
            }
        }
        return Response(status: status, headers: headers, body: body)
    }
}

extension HubServer {
    /// What a download that has written its last byte counts: its bytes, and — for a whole-file
    /// answer — one download (shared by the router's route and the fast path).
    func downloadCompleted(name: String, version: Int, bytes: Int64, wholeFile: Bool) -> @Sendable () -> Void {
        let (metrics, counter) = (self.metrics, downloads)
        return {
            metrics.downloadBytes(model: name, version: version, bytes: bytes)
            if wholeFile {
                counter.add(name: name, version: version)
                metrics.downloadCompleted(model: name, version: version)
            }
        }
    }
}

/// A sendfile answer that broke off; how many of its bytes left is unknown (logged as 0, as the
/// fast path does).
struct FileRegionBroken: Error {}

/// A blob opened for reading; the descriptor closes when the last reference goes.
final class OpenBlob: Sendable {
    enum Failure: Error {
        case missing
        case wrongSize(Int64)
    }

    private let descriptor: Int32

    init(path: String, expectedSize: Int64) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw Failure.missing }
            throw HubStorageError.io("cannot open a blob: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw HubStorageError.io("cannot stat a blob")
        }
        guard Int64(info.st_size) == expectedSize else {
            close(fd)
            throw Failure.wrongSize(Int64(info.st_size))
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Registers `part` of this blob for ``FileRegionSwapper`` (on its own duplicate descriptor);
    /// nil when the descriptor cannot be duplicated.
    func ticket(in table: FileRegionTable, _ part: ByteRange, _ finished: @escaping @Sendable (Bool) -> Void) -> ByteBuffer? {
        let copy = dup(descriptor)
        guard copy >= 0 else { return nil }
        return table.register(
            .init(
                handle: NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy), offset: Int(part.start),
                length: Int(part.length), finished: finished))
    }

    /// `count` bytes from `offset`, read straight into a buffer.
    func read(at offset: Int64, count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var done = 0
        while done < count {
            var n = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - done) { pointer in
                n = pread(descriptor, pointer.baseAddress, count - done, off_t(offset) + off_t(done))
                return max(0, n)
            }
            guard n > 0 else {
                throw HubStorageError.io(n == 0 ? "a blob ended early" : "cannot read a blob: \(String(cString: strerror(errno)))")
            }
            done += n
        }
        return buffer
    }
}
