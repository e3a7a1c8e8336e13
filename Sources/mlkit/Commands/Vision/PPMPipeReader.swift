import Foundation
import OpenMLKitVision

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads binary PPM images (`P6`, 8 bits a sample) one after another from a pipe, as ffmpeg's
/// `image2pipe` muxer writes them: every frame carries its own width and height, so a stream whose
/// size changes midway (some phone and screen recordings do) needs no second probe.
///
/// Every wait for bytes is bounded by `stallTimeout`: a writer that stops making progress ends the
/// read with ``Failure/stalled(seconds:)`` instead of blocking the caller forever. Memory stays at
/// one frame: the pixels are read straight into the frame's own array.
struct PPMPipeReader {
    /// Why a frame could not be read.
    enum Failure: Error, Equatable {
        /// No byte arrived for this many seconds.
        case stalled(seconds: Double)
        /// The stream ended inside a frame, after `got` of its `expected` bytes.
        case truncated(got: Int, expected: Int)
        /// The bytes are not a PPM frame this reader handles.
        case malformed(String)
        /// `read` or `poll` failed with this `errno`.
        case system(Int32)
    }

    /// The largest frame accepted, in bytes: 2 GiB would not fit the detector anyway, and a
    /// header claiming more is a broken stream, not a frame.
    static let maximumFrameBytes = 1 << 30

    private let descriptor: Int32
    private let stallTimeout: Double
    /// Bytes read past the end of the previous header or frame, consumed first.
    private var pending: [UInt8] = []

    /// A reader of the pipe's read end `descriptor` (not closed by the reader).
    init(descriptor: Int32, stallTimeout: Double) {
        self.descriptor = descriptor
        self.stallTimeout = stallTimeout
    }

    /// The next frame as RGB pixels, or nil when the stream ended cleanly between frames.
    mutating func next() throws(Failure) -> PixelBuffer? {
        guard let (width, height) = try readHeader() else { return nil }
        let count = width * height * 3
        var filled = 0
        var failure: Failure?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            let head = min(pending.count, count)
            for index in 0..<head { storage[index] = pending[index] }
            pending.removeFirst(head)
            filled = head
            while filled < count {
                do throws(Failure) {
                    let got = try readSome(into: storage.baseAddress! + filled, capacity: count - filled)
                    if got == 0 { break }
                    filled += got
                } catch {
                    failure = error
                    break
                }
            }
            // The array must be fully initialized even when the read came up short; it is dropped then.
            for index in filled..<count { storage[index] = 0 }
            initialized = count
        }
        if let failure { throw failure }
        guard filled == count else { throw .truncated(got: filled, expected: count) }
        do {
            return try PixelBuffer(bytes: bytes, width: width, height: height, format: .rgb8)
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// Parses `P6 width height maxval` and the single whitespace byte after it; nil at a clean end.
    private mutating func readHeader() throws(Failure) -> (width: Int, height: Int)? {
        var tokens: [Int] = []
        var index = 0
        var sawMagic = false
        var inComment = false
        var token: Int?
        while true {
            if index == pending.count {
                guard pending.count < 1024 else { throw .malformed("a PPM header longer than 1024 bytes") }
                if try !readMore() {
                    if pending.isEmpty { return nil }
                    throw .truncated(got: pending.count, expected: pending.count + 1)
                }
                continue
            }
            let byte = pending[index]
            index += 1
            if !sawMagic {
                if index == 2 {
                    guard pending[0] == UInt8(ascii: "P"), pending[1] == UInt8(ascii: "6") else {
                        throw .malformed("a frame does not start with the PPM signature P6")
                    }
                    sawMagic = true
                }
                continue
            }
            if inComment {
                if byte == 0x0A || byte == 0x0D { inComment = false }
                continue
            }
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                let value = (token ?? 0) * 10 + Int(byte - UInt8(ascii: "0"))
                guard value <= 1 << 20 else { throw .malformed("a PPM header number is too large") }
                token = value
            } else if byte == UInt8(ascii: "#") && token == nil {
                inComment = true
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                if let value = token {
                    tokens.append(value)
                    token = nil
                    // The one whitespace byte after maxval ends the header; pixels follow.
                    if tokens.count == 3 { break }
                }
            } else {
                throw .malformed("unexpected byte \(byte) in a PPM header")
            }
        }
        pending.removeFirst(index)
        let (width, height, maxval) = (tokens[0], tokens[1], tokens[2])
        guard maxval == 255 else { throw .malformed("PPM maxval \(maxval); only 8-bit frames (255) are read") }
        guard width > 0, height > 0, width * height * 3 <= Self.maximumFrameBytes else {
            throw .malformed("a \(width)x\(height) frame is outside the sizes read (1 pixel to 1 GiB)")
        }
        return (width, height)
    }

    /// Appends what the pipe has to `pending`; false at the end of the stream.
    private mutating func readMore() throws(Failure) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let got = try chunk.withUnsafeMutableBufferPointer { (buffer) throws(Failure) -> Int in
            try readSome(into: buffer.baseAddress!, capacity: buffer.count)
        }
        pending.append(contentsOf: chunk[0..<got])
        return got > 0
    }

    /// One `read` of up to `capacity` bytes after waiting at most `stallTimeout` for data; 0 at the end.
    private func readSome(into pointer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(Failure) -> Int {
        let milliseconds = Int32(clamping: Int((stallTimeout * 1000).rounded(.up)))
        while true {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if ready == 0 { throw .stalled(seconds: stallTimeout) }
            let got = read(descriptor, pointer, capacity)
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .system(errno)
            }
            return got
        }
    }
}
