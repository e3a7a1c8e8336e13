import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

@Suite("NumPy .npy files")
struct NumPyArrayTests {
    @Test("round trip", arguments: [TensorType.float32, .uint8, .int8, .int32, .int64, .bool, .float16, .int16])
    func roundTrip(type: TensorType) throws {
        let shape = [2, 3, 4]
        let bytes = Data((0..<(24 * type.byteSize)).map { UInt8($0 % 251) })
        let array = NumPyArray(type: type, shape: shape, data: bytes)
        let parsed = try NumPyArray(npy: try array.npyData())
        #expect(parsed == array)
        #expect(try array.npyData().count % 64 == 24 * type.byteSize % 64)
    }

    @Test("scalars and vectors")
    func shapes() throws {
        for shape in [[], [5], [1, 1]] {
            let n = shape.reduce(1, *)
            let array = NumPyArray(type: .float32, shape: shape, data: Data(count: n * 4))
            #expect(try NumPyArray(npy: try array.npyData()).shape == shape)
        }
    }

    @Test("rejects malformed files")
    func malformed() throws {
        #expect(throws: NumPyArray.FormatError.self) { try NumPyArray(npy: Data("not numpy".utf8)) }
        var good = try NumPyArray(type: .float32, shape: [4], data: Data(count: 16)).npyData()
        good.removeLast()
        #expect(throws: NumPyArray.FormatError.sizeMismatch(expected: 16, actual: 15)) { try NumPyArray(npy: good) }
    }

    @Test("half-precision conversion")
    func half() {
        #expect(Float(float16Bits: 0x3C00) == 1)
        #expect(Float(float16Bits: 0xC000) == -2)
        #expect(Float(float16Bits: 0x0001) == Float(sign: .plus, exponent: -24, significand: 1))
        #expect(Float(float16Bits: 0x7C00) == .infinity)
        #expect(Float(float16Bits: 0x7BFF) == 65504)
    }
}
