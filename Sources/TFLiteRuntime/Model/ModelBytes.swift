#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The bytes of a model file, kept in one place for the life of every interpreter that uses them.
///
/// A file is memory-mapped read-only, so the weights are never copied; in-memory model data is
/// copied once into an aligned allocation. Constant tensors point straight into these bytes.
final class ModelBytes: @unchecked Sendable {
    let base: UnsafeRawPointer
    let count: Int
    private let release: () -> Void

    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Maps the file at `path` read-only.
    init(mappingFile path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw ModelError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ModelError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw ModelError.unreadable(path: path, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        guard size > 0 else { throw ModelError.tooSmall(size: 0) }
        // Pages come in as they are read (the kernel maps the neighbours of each faulting page too):
        // measured on MobileNetV2, mapping every page up front with MAP_POPULATE made loading slower.
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw ModelError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        base = UnsafeRawPointer(mapped)
        count = size
        release = { munmap(mapped, size) }
    }

    /// Copies `data` once into a 64-byte aligned allocation.
    init(copying data: Data) {
        let size = max(data.count, 1)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        data.withUnsafeBytes { raw in
            if let src = raw.baseAddress, raw.count > 0 { memory.copyMemory(from: src, byteCount: raw.count) }
        }
        base = UnsafeRawPointer(memory)
        count = data.count
        release = { memory.deallocate() }
    }

    deinit { release() }
}
