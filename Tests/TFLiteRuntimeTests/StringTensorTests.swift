import Foundation
import Testing

@testable import TFLiteRuntime

/// TensorFlow Lite's string tensor format: round trips, and malformed buffers that must throw.
@Suite("String tensors")
struct StringTensorTests {
    @Test("encode and decode round-trip, including empty and non-ASCII strings")
    func roundTrip() throws {
        let strings: [[UInt8]] = [Array("apple".utf8), [], Array("ünïcödé".utf8), [0, 255, 10]]
        let bytes = StringTensor.encode(strings)
        #expect(bytes.count == (strings.count + 2) * 4 + strings.reduce(0) { $0 + $1.count })
        let decoded = try bytes.withUnsafeBytes { try StringTensor.decode($0, count: 4, what: "t") }
        #expect(decoded == strings)
        #expect(try StringTensor.encode([]).withUnsafeBytes { try StringTensor.decode($0, what: "t") }.isEmpty)
    }

    @Test("malformed buffers throw instead of reading out of bounds")
    func malformed() throws {
        let good = StringTensor.encode([Array("ab".utf8), Array("cde".utf8)])
        func decode(_ b: [UInt8], count: Int? = nil) throws -> [[UInt8]] {
            try b.withUnsafeBytes { try StringTensor.decode($0, count: count, what: "t") }
        }
        func patched(_ word: Int, _ value: Int32) -> [UInt8] {
            var b = good
            withUnsafeBytes(of: value.littleEndian) { for (i, x) in $0.enumerated() { b[word * 4 + i] = x } }
            return b
        }
        #expect(throws: RuntimeError.self) { try decode([1, 0]) }                     // shorter than the count
        #expect(throws: RuntimeError.self) { try decode(patched(0, 1_000_000)) }      // count beyond the buffer
        #expect(throws: RuntimeError.self) { try decode(patched(0, -1)) }             // negative count
        #expect(throws: RuntimeError.self) { try decode(patched(1, 3)) }              // first offset inside the header
        #expect(throws: RuntimeError.self) { try decode(patched(2, 9999)) }           // offset past the end
        #expect(throws: RuntimeError.self) { try decode(patched(3, 17)) }             // offsets going backwards
        #expect(throws: RuntimeError.self) { try decode(good, count: 3) }             // wrong element count
        // Every truncation of a valid buffer either decodes or throws.
        for n in 0..<good.count { _ = try? decode(Array(good.prefix(n))) }
    }

    @Test("string inputs and outputs through the interpreter, with wrong counts refused")
    func interpreterStrings() throws {
        let path = TestPaths.packageRoot.appendingPathComponent(
            "Tests/TFLiteRuntimeTests/Fixtures/control_flow/hashtable_int64_keys/model.tflite").path
        let interpreter = try Interpreter(modelPath: path)
        try interpreter.allocateTensors()
        #expect(throws: InterpreterError.self) { try interpreter.copy(strings: ["a"], toInputAt: 0) }  // int64 input
        let ids: [Int64] = [9, 7, 42, 8]
        try interpreter.copy(Data(ids.withUnsafeBytes { Array($0) }), toInputAt: 0)
        try interpreter.invoke()
        let words = interpreter.outputTensorCount == 2
            ? [0, 1].compactMap { try? interpreter.outputStrings(at: $0) }.first ?? [] : []
        #expect(words == ["nine", "seven", "?", "eight"])
    }
}
