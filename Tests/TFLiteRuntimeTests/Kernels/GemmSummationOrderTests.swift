import Testing

@testable import TFLiteRuntime

@Suite("LiteRT's float GEMM summation order")
struct GemmSummationOrderTests {
    @Test("each output takes Eigen's path for its block")
    func classification() {
        // 10 pixels × 13 channels, K = 40: channels 0-7 in whole blocks of 8, 8-11 one block of 4,
        // 12 the leftover; pixels 8 and 9 past the last whole group of 4.
        func order(_ p: Int, _ c: Int) -> GemmSummationOrder {
            GemmSummationOrder.of(pixel: p, channel: c, pixels: 10, channels: 13, depth: 40)
        }
        #expect(order(0, 0) == .sequential)
        #expect(order(7, 7) == .sequential)
        #expect(order(0, 8) == .evenOdd)
        #expect(order(7, 11) == .evenOdd)
        #expect(order(3, 12) == .fourWay)
        #expect(order(8, 8) == .sequential)
        #expect(order(9, 12) == .sequential)
        #expect(GemmSummationOrder.firstIrregularChannel(pixels: 10, channels: 13, depth: 40) == 8)
        #expect(GemmSummationOrder.firstIrregularChannel(pixels: 10, channels: 16, depth: 40) == nil)
        #expect(GemmSummationOrder.firstIrregularChannel(pixels: 3, channels: 13, depth: 40) == nil)
        #expect(GemmSummationOrder.of(pixel: 0, channel: 5, pixels: 1, channels: 13, depth: 40) == .gemv)
        #expect(GemmSummationOrder.of(pixel: 4, channel: 0, pixels: 10, channels: 1, depth: 40) == .gemv)
        #expect(GemmSummationOrder.of(pixel: 0, channel: 0, pixels: 5, channels: 6, depth: 8) == .dot)
    }

    @Test("each order rounds its partial sums as described")
    func sums() {
        // Products 1e8, 1, -1e8, 1, 3, 5 (weights 1): where the ones are added decides whether
        // they survive next to 1e8 in float.
        let values: [Float] = [1e8, 1, -1e8, 1, 3, 5, 0, 0, 7]
        values.withUnsafeBufferPointer { buffer in
            let x = buffer.baseAddress!
            func sum(_ order: GemmSummationOrder, _ n: Int) -> Float {
                order.sum(taps: 1, depth: n, x: { _ in x }, w: { _ in 1 })
            }
            // In order: 1e8 + 1 rounds to 1e8, - 1e8 = 0, then + 1 + 3 + 5.
            #expect(sum(.sequential, 6) == 9)
            // Four sums over k mod 4 for the first whole group (1e8, 1, -1e8, 1), then 3 and 5 in order:
            // (1e8 + 1) + (-1e8 + 1) loses both ones; (1e8 + -1e8) + (1 + 1) keeps them.
            #expect(sum(.fourWay, 6) == 8)
            #expect(sum(.gemv, 6) == 10)
            // Even/odd pairs up to the last multiple of 8, then the rest in order.
            let even: Float = 1e8 + -1e8 + 3 + 0, odd: Float = 1 + 1 + 5 + 0
            #expect(sum(.evenOdd, 9) == (even + odd) + 7)
            // Two accumulators over alternate groups of four: one group of four, then the tail.
            let lanes: [Float] = [1e8, 1, -1e8, 1]
            #expect(sum(.dot, 6) == ((lanes[0] + lanes[2]) + (lanes[1] + lanes[3]) + 3) + 5)
        }
    }
}
