import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A deliberately misbehaving HTTP server on a loopback port: each connection's request head is
/// read and handed, with the socket, to `respond`, which writes whatever raw bytes the test wants
/// (redirects elsewhere, trickles, more bytes than announced, binary error bodies).
///
/// A real socket server, not a mock: the client under test goes through its whole network stack.
final class RogueHTTPServer: @unchecked Sendable {
    struct Request {
        let method: String
        let path: String
        let headers: [String: String]  // lower-cased names
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var received: [Request] = []
    private var stopped = false

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var requests: [Request] { lock.withLock { received } }

    init(respond: @escaping @Sendable (Request, RogueConnection) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [weak self] in
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0, let self else { return }
                if self.lock.withLock({ self.stopped }) {
                    close(client)
                    return
                }
                Thread.detachNewThread {
                    let connection = RogueConnection(fd: client)
                    defer { connection.close() }
                    guard let request = connection.readHead() else { return }
                    self.lock.withLock { self.received.append(request) }
                    respond(request, connection)
                }
            }
        }
        thread.start()
    }

    func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// One accepted connection of a ``RogueHTTPServer``.
final class RogueConnection: @unchecked Sendable {
    private let fd: Int32
    private var isClosed = false

    init(fd: Int32) {
        self.fd = fd
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if !os(Linux)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    func readHead() -> RogueHTTPServer.Request? {
        var data = [UInt8]()
        var byte: UInt8 = 0
        while data.count < 65536 {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            data.append(byte)
            if data.count >= 4 && data.suffix(4) == [13, 10, 13, 10] { break }
        }
        let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n")
        let first = lines.first?.split(separator: " ") ?? []
        guard first.count >= 2 else { return nil }
        var headers = [String: String]()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        // A body announced by the client is read and dropped.
        if let length = headers["content-length"].flatMap(Int.init), length > 0 {
            var remaining = length
            var buffer = [UInt8](repeating: 0, count: 65536)
            while remaining > 0 {
                let n = recv(fd, &buffer, min(buffer.count, remaining), 0)
                if n <= 0 { break }
                remaining -= n
            }
        }
        return .init(method: String(first[0]), path: String(first[1]), headers: headers)
    }

    /// Writes bytes; false once the peer has gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL_OR_ZERO)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// An answer with a body and its true length.
    func respond(status: String, headers: [String: String] = [:], body: [UInt8]) {
        var head = "HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        write(head + "\r\n")
        write(body)
    }

    func respond(status: String, headers: [String: String] = [:], json: String) {
        respond(status: status, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a }, body: Array(json.utf8))
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = shutdown(fd, Int32(SHUT_RDWR))
        closeDescriptor(fd)
    }
}

#if os(Linux)
private let MSG_NOSIGNAL_OR_ZERO: Int32 = Int32(MSG_NOSIGNAL)
#else
private let MSG_NOSIGNAL_OR_ZERO: Int32 = 0
#endif

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }
