/// A single `Range: bytes=...` request resolved against a file size (RFC 9110 §14.1.2).
struct ByteRange: Equatable {
    /// First byte offset, inclusive.
    let start: Int64
    /// Last byte offset, inclusive.
    let end: Int64

    var length: Int64 { end - start + 1 }

    enum Outcome: Equatable {
        /// No usable range header: send the whole file.
        case whole
        /// Send this part.
        case partial(ByteRange)
        /// The range cannot be satisfied (416).
        case unsatisfiable
    }

    /// Resolves `header` against a file of `size` bytes. Multi-range requests and malformed
    /// headers are served whole, as RFC 9110 allows; ranges starting past the end are 416.
    static func resolve(_ header: String?, size: Int64) -> Outcome {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // Suffix range: the last N bytes.
            guard let count = Int64(last), count > 0 else { return last.isEmpty ? .whole : .unsatisfiable }
            if size == 0 { return .unsatisfiable }
            return .partial(ByteRange(start: max(0, size - count), end: size - 1))
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        if start >= size { return .unsatisfiable }
        if last.isEmpty { return .partial(ByteRange(start: start, end: size - 1)) }
        guard let end = Int64(last), end >= start else { return .whole }
        return .partial(ByteRange(start: start, end: min(end, size - 1)))
    }
}

import Foundation
