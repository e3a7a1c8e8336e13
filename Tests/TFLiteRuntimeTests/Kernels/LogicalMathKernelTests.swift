import Foundation
import Testing

@testable import TFLiteRuntime

private typealias KernelHarness = ElementwiseTestKit.Harness

/// Comparisons, logical operators, SELECT/WHERE and the element-wise math operators: hand-checked
/// values, and malformed nodes that must throw instead of trapping. (LiteRT's own answers for every
/// type are checked by `SingleOperatorTests`.)
@Suite("Logical and math kernels")
struct LogicalMathKernelTests {
    @Test func comparisonsBroadcast() throws {
        let h = KernelHarness()
        let a = try h.floats([1, 2, 3, 4, 5, 6], [2, 3])
        let b = try h.floats([2, 2, 2], [3])
        #expect(
            try h.run1(.less, [a, b]).elementwiseTestValues(Bool.self) == [true, false, false, false, false, false])
        #expect(
            try h.run1(.greaterEqual, [a, b]).elementwiseTestValues(Bool.self) == [false, true, true, true, true, true])
        let nan = try h.floats([.nan], [1])
        #expect(try h.run1(.equal, [nan, nan]).elementwiseTestValues(Bool.self) == [false])
        #expect(try h.run1(.notEqual, [nan, nan]).elementwiseTestValues(Bool.self) == [true])
    }

    @Test func quantizedComparisonRescales() throws {
        let h = KernelHarness()
        // 0.5 × (10 − 0) = 5.0 against 0.25 × (21 − 1) = 5.0: equal after rescaling, not as raw values.
        let a = try QuantizedTestKit.tensor(h, [10, 11] as [Int8], [2], .int8, scale: 0.5, zeroPoint: 0)
        let b = try QuantizedTestKit.tensor(h, [21, 21] as [Int8], [2], .int8, scale: 0.25, zeroPoint: 1)
        #expect(try h.run1(.equal, [a, b]).elementwiseTestValues(Bool.self) == [true, false])
        #expect(try h.run1(.greater, [a, b]).elementwiseTestValues(Bool.self) == [false, true])
    }

    @Test func selectAndWhere() throws {
        let h = KernelHarness()
        let rows = try h.tensor([true, false], shape: [2], type: .bool)
        let x = try h.floats([1, 2, 3, 4], [2, 2])
        let y = try h.floats([-1, -2, -3, -4], [2, 2])
        #expect(try h.run1(.select, [rows, x, y]).elementwiseTestValues(Float.self) == [1, 2, -3, -4])
        let column = try h.tensor([false, true], shape: [2, 1], type: .bool)
        let scalar = try h.floats([9], [])
        #expect(try h.run1(.selectV2, [column, x, scalar]).elementwiseTestValues(Float.self) == [9, 9, 3, 4])
        let c = try h.tensor([0, 2, 0, -1, 0, 0] as [Int32], shape: [2, 3], type: .int32)
        let w = try h.run1(.where, [c])
        #expect(w.shape == [2, 2])
        #expect(w.elementwiseTestValues(Int64.self) == [0, 1, 1, 0])
        let constant = try h.tensor([true, false, true], shape: [3], type: .bool, constant: true)
        let wc = try h.run1(.where, [constant])
        #expect(wc.shape == [2, 1])
        #expect(wc.elementwiseTestValues(Int64.self) == [0, 2])
    }

    @Test func mathHandChecked() throws {
        let h = KernelHarness()
        let halves = try h.floats([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], [6])
        #expect(try h.run1(.round, [halves]).elementwiseTestValues(Float.self) == [-2, -2, 0, 0, 2, 2])
        let i = try h.tensor([3, -3, 2] as [Int32], shape: [3], type: .int32)
        let e = try h.tensor([4, 3, 31] as [Int32], shape: [3], type: .int32)
        // An int32 power out of range is Int32.min, as LiteRT's double pow converted on x86.
        #expect(try h.run1(.pow, [i, e]).elementwiseTestValues(Int32.self) == [81, -27, Int32.min])
        let s = try h.tensor([-128, 64] as [Int8], shape: [2], type: .int8)
        let k = try h.tensor([100, -3] as [Int8], shape: [2], type: .int8)
        // Shift counts outside [0, 7] are clamped, not undefined.
        #expect(try h.run1(.rightShift, [s, k]).elementwiseTestValues(Int8.self) == [-1, 64])
        let n1 = try h.tensor([Int32.max, 1] as [Int32], shape: [2], type: .int32)
        let n2 = try h.tensor([1, 2] as [Int32], shape: [2], type: .int32)
        #expect(try h.run1(.addN, [n1, n2, n2]).elementwiseTestValues(Int32.self) == [Int32.min + 1, 5])
    }

    @Test func quantizedDivision() throws {
        let h = KernelHarness()
        let a = try QuantizedTestKit.tensor(h, [100, -40, 0] as [Int8], [3], .int8, scale: 0.05, zeroPoint: 0)
        let b = try QuantizedTestKit.tensor(h, [20, 20, 20] as [Int8], [3], .int8, scale: 0.1, zeroPoint: 0)
        let out = QuantizedTestKit.output(.int8, scale: 0.1, zeroPoint: 0)
        // 5.0 / 2.0 = 2.5 and -2.0 / 2.0 = -1.0; a zero dividend asks LiteRT for a shift by 32 bits,
        // which its x86 build turns into one quantum (the fixtures div_*_large show it too).
        let y = try h.run(.div, [a, b], outputs: [out])[0]
        #expect(QuantizedTestKit.values(y) == [25, -10, 1])
        let zero = try QuantizedTestKit.tensor(h, [0, 20, 20] as [Int8], [3], .int8, scale: 0.1, zeroPoint: 0)
        #expect(throws: RuntimeError.self) {
            try h.run(.div, [a, zero], outputs: [QuantizedTestKit.output(.int8, scale: 0.1, zeroPoint: 0)])
        }
    }

    @Test func badNodesThrow() throws {
        let h = KernelHarness()
        let f = try h.floats([1, 2], [2])
        let i = try h.tensor([1, 2] as [Int32], shape: [2], type: .int32)
        let flag = try h.tensor([true, false], shape: [2], type: .bool)
        #expect(throws: RuntimeError.self) { try h.run1(.less, [f, i]) }
        #expect(throws: RuntimeError.self) { try h.run1(.less, [flag, flag]) }
        #expect(throws: RuntimeError.self) { try h.run1(.equal, [f, try h.floats([1, 2, 3], [3])]) }
        #expect(throws: RuntimeError.self) { try h.run1(.logicalAnd, [flag, i]) }
        #expect(throws: RuntimeError.self) { try h.run1(.select, [flag, f, try h.floats([1, 2, 3], [3])]) }
        #expect(throws: RuntimeError.self) {
            try h.run1(.select, [try h.tensor([true], shape: [1], type: .bool), f, f])
        }
        #expect(throws: RuntimeError.self) { try h.run1(.selectV2, [i, f, f]) }
        #expect(throws: RuntimeError.self) {
            try h.run1(.pow, [i, try h.tensor([1, -1] as [Int32], shape: [2], type: .int32)])
        }
        #expect(throws: RuntimeError.self) { try h.run1(.addN, [f]) }
        #expect(throws: RuntimeError.self) { try h.run1(.addN, [f, try h.floats([1, 2, 3], [3])]) }
        #expect(throws: RuntimeError.self) { try h.run1(.sin, [i]) }
        #expect(throws: RuntimeError.self) { try h.run1(.bitwiseXor, [f, f]) }
        // A constant whose data is shorter than its shape.
        let short = try h.tensor([1, 2] as [Float], shape: [4], type: .float32, constant: true)
        #expect(throws: RuntimeError.self) { try h.run1(.greater, [short, try h.floats([1, 2, 3, 4], [4])]) }
        #expect(throws: RuntimeError.self) { try h.run1(.cos, [short]) }
        let shortFlags = try h.tensor([true] as [Bool], shape: [3], type: .bool, constant: true)
        #expect(throws: RuntimeError.self) { try h.run1(.where, [shortFlags]) }
    }
}
