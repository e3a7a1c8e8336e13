import Testing

@testable import TFLiteRuntime

/// `WeightArena`: every block is aligned, writable, and apart from every other, across chunks of
/// both kinds (ordinary pages, and huge-page chunks from 2 MiB up); `ScratchBuffer`s placed in an
/// arena keep their contents and outlive nothing.
@Suite("Weight arena")
struct WeightArenaTests {
    @Test("blocks are aligned, disjoint and keep what is written", arguments: [0, 300 << 10, 8 << 20])
    func blocks(expectedBytes: Int) {
        let arena = WeightArena(expectedBytes: expectedBytes)
        var blocks: [(pointer: UnsafeMutableRawPointer, count: Int, fill: UInt8)] = []
        // Small and large requests, some larger than any chunk made so far.
        let sizes = [1, 64, 100, 4096, 70_000, 1 << 20, 3 << 20, 17, 5 << 20, 9]
        for (i, size) in sizes.enumerated() {
            let alignment = [1, 2, 4, 8, 64, 4096][i % 6]
            let p = arena.allocate(byteCount: size, alignment: alignment)
            #expect(Int(bitPattern: p) % max(alignment, 64) == 0)
            let fill = UInt8(truncatingIfNeeded: 31 &* i &+ 7)
            p.initializeMemory(as: UInt8.self, repeating: fill, count: size)
            blocks.append((p, size, fill))
        }
        for (i, a) in blocks.enumerated() {
            let bytes = UnsafeBufferPointer(start: a.pointer.assumingMemoryBound(to: UInt8.self), count: a.count)
            #expect(bytes.allSatisfy { $0 == a.fill }, "block \(i) was overwritten")
            for b in blocks[(i + 1)...] {
                let aStart = Int(bitPattern: a.pointer), bStart = Int(bitPattern: b.pointer)
                #expect(aStart + a.count <= bStart || bStart + b.count <= aStart)
            }
        }
    }

    @Test("scratch buffers placed in an arena grow there and keep their values")
    func scratchBuffers() {
        let arena = WeightArena(expectedBytes: 1 << 10)
        let a = ScratchBuffer<Int32>(0), b = ScratchBuffer<Int16>(0)
        a.place(in: arena)
        b.place(in: arena)
        a.reserve(1000, filling: -3)
        b.reserveUninitialized(5000)
        for i in 0..<5000 { b.pointer[i] = Int16(truncatingIfNeeded: i) }
        #expect((0..<1000).allSatisfy { a.pointer[$0] == -3 })
        // Growing again takes a new block (the old one stays in the arena) and refills it.
        a.reserve(400_000, filling: 9)
        #expect(a.capacity == 400_000)
        #expect((0..<400_000).allSatisfy { a.pointer[$0] == 9 })
        #expect((0..<5000).allSatisfy { b.pointer[$0] == Int16(truncatingIfNeeded: $0) })
    }
}
