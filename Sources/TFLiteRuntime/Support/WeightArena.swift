#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for the weights the kernels repack at load time, handed out from a few large chunks that
/// live as long as the subgraph's kernels.
///
/// Packing writes every byte of a fresh buffer once, and on Linux the first touch of fresh memory
/// costs more than the packing: on our machine about 1.8 µs per 4 KiB page, 1.6 ms for
/// MobileNetV2's 3.5 MB, whether the pages come in by faults or all at once. So on Linux each chunk
/// is a 2 MiB-aligned anonymous mapping marked `MADV_HUGEPAGE` (transparent huge pages, in the
/// default `madvise` mode too), and the pages an allocation reaches are brought in right away with
/// `MADV_POPULATE_WRITE` (Linux 5.14+), 2 MiB at a time where the kernel has huge pages: about a
/// tenth of the time. Both are advice; without them the chunk is ordinary memory. The cost: memory
/// rounds up to whole huge pages (under 2 MiB per subgraph), so chunks under 2 MiB (small models)
/// keep ordinary pages; and now and then the kernel takes much longer to find a huge page. Elsewhere
/// the chunks are ordinary heap memory.
///
/// Allocations are never returned one by one; a kernel that repacks the same weights reuses its
/// block. Not thread-safe: kernels are built and prepared on one thread.
final class WeightArena {
    private static let hugePage = 2 << 20
    /// The smallest chunk; chunks of at least a huge page are made for huge pages.
    private static let minimumChunk = 256 << 10

    private struct Chunk {
        let base: UnsafeMutableRawPointer
        let size: Int
        /// Whether `deinit` unmaps the chunk (or deallocates it).
        let mapped: Bool
    }

    private var chunks: [Chunk] = []
    /// Free bytes at the end of the current chunk.
    private var cursor: UnsafeMutableRawPointer?
    private var remaining = 0
    /// The end of the current chunk's populated pages.
    private var populatedEnd = 0
    /// Bytes the first chunk is made for (the caller's estimate of everything packed).
    private var firstChunkBytes: Int

    /// `expectedBytes`: about how much the kernels will ask for in all. Only the pages the allocations
    /// reach are ever touched, so an estimate on the high side costs address space, not memory.
    init(expectedBytes: Int) {
        firstChunkBytes = max(expectedBytes, 0)
    }

    deinit {
        for chunk in chunks {
            if chunk.mapped {
                #if os(Linux)
                munmap(chunk.base, chunk.size)
                #endif
            } else {
                chunk.base.deallocate()
            }
        }
    }

    /// `byteCount` bytes aligned to `alignment` (a power of two up to 4096), uninitialized.
    func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        let align = max(alignment, 64)
        let count = max(byteCount, 1)
        var padding = 0
        if let p = cursor { padding = (align - Int(bitPattern: p) % align) % align }
        if cursor == nil || padding + count > remaining {
            let size = Self.roundUp(max(count + align, firstChunkBytes, Self.minimumChunk), to: 64 << 10)
            firstChunkBytes = 0
            let chunk = Self.makeChunk(size: size)
            chunks.append(chunk)
            cursor = chunk.base
            remaining = chunk.size
            populatedEnd = Int(bitPattern: chunk.base)
            padding = 0
        }
        let start = cursor! + padding
        cursor = start + count
        remaining -= padding + count
        populate(upTo: Int(bitPattern: start) + count)
        return start
    }

    /// Brings in the current chunk's pages up to `end` (rounded up to a page).
    private func populate(upTo end: Int) {
        #if os(Linux)
        guard chunks.last?.mapped == true else { return }
        let pageEnd = Self.roundUp(end, to: 4096)
        guard pageEnd > populatedEnd, let from = UnsafeMutableRawPointer(bitPattern: populatedEnd) else { return }
        // Advice only: before Linux 5.14 this fails and the pages fault in as they are written.
        _ = madvise(from, pageEnd - populatedEnd, 23 /* MADV_POPULATE_WRITE */)
        populatedEnd = pageEnd
        #endif
    }

    private static func roundUp(_ n: Int, to multiple: Int) -> Int { (n + multiple - 1) / multiple * multiple }

    private static func makeChunk(size: Int) -> Chunk {
        #if os(Linux)
        guard size >= hugePage else {
            // Small models: ordinary pages (a huge page would hold mostly nothing).
            if let raw = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED {
                return Chunk(base: raw, size: size, mapped: true)
            }
            return Chunk(base: .allocate(byteCount: size, alignment: 4096), size: size, mapped: false)
        }
        // One huge page more than needed, trimmed so that the chunk starts on a 2 MiB boundary (a huge
        // page can only back an aligned 2 MiB range).
        let span = size + hugePage
        if let raw = mmap(nil, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED {
            let start = Int(bitPattern: raw)
            let aligned = roundUp(start, to: hugePage)
            let head = aligned - start, tail = span - head - size
            if head > 0 { munmap(raw, head) }
            if tail > 0, let end = UnsafeMutableRawPointer(bitPattern: aligned + size) { munmap(end, tail) }
            if let base = UnsafeMutableRawPointer(bitPattern: aligned) {
                _ = madvise(base, size, 14 /* MADV_HUGEPAGE */)
                return Chunk(base: base, size: size, mapped: true)
            }
        }
        #endif
        return Chunk(base: .allocate(byteCount: size, alignment: 4096), size: size, mapped: false)
    }
}
