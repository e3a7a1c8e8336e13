import Foundation
import Testing

@testable import TFLiteRuntime

/// Index-driven and reduction kernels fed values that would address memory outside a tensor
/// (out-of-range indices, negative or huge sizes, bad axes): each must throw, never trap. The
/// models are the single-operator fixtures; only their run-time inputs are replaced.
@Suite struct IndexingRobustnessTests {
    enum Value {
        case int32([Int32], [Int])
        case int64([Int64], [Int])
        case float([Float], [Int])

        var data: Data {
            switch self {
            case .int32(let v, _): return v.withUnsafeBytes { Data($0) }
            case .int64(let v, _): return v.withUnsafeBytes { Data($0) }
            case .float(let v, _): return v.withUnsafeBytes { Data($0) }
            }
        }
        var shape: [Int] {
            switch self {
            case .int32(_, let s), .int64(_, let s), .float(_, let s): return s
            }
        }
    }

    /// Runs fixture `name` with `inputs` (in run-time input order).
    static func run(_ name: String, _ inputs: [Value]) throws {
        let path = SingleOperatorTests.folder.appendingPathComponent(name).appendingPathComponent("model.tflite").path
        let interpreter = try Interpreter(modelPath: path, options: .init(threadCount: 1))
        for (i, value) in inputs.enumerated() {
            try interpreter.resizeInput(at: i, to: Tensor.Shape(value.shape))
        }
        try interpreter.allocateTensors()
        for (i, value) in inputs.enumerated() { _ = try interpreter.copy(value.data, toInputAt: i) }
        try interpreter.invoke()
    }

    static func floats(_ shape: [Int]) -> Value { .float([Float](repeating: 1, count: shape.reduce(1, *)), shape) }

    static let rejected: [(String, [Value])] = [
        ("embedding_lookup_float32", [.int32([2, 0, 2, 99], [4]), floats([5, 3])]),
        ("embedding_lookup_float32", [.int32([-1], [1]), floats([5, 3])]),
        ("scatter_nd_float32_runtime", [.int32([1, 9], [2, 1]), floats([2, 2, 3]), .int32([4, 2, 3], [3])]),
        ("scatter_nd_float32_runtime", [.int32([1, 2], [2, 1]), floats([2, 2, 3]), .int32([-4, 2, 3], [3])]),
        (
            "sparse_to_dense_int32_runtime",
            [.int32([1, 1, 5, 2], [2, 2]), .int32([2, 3], [2]), .int32([1, 2], [2]), .int32([0], [])]
        ),
        ("segment_sum_float32_runtime_ids", [floats([4, 2, 2]), .int32([0, 2, 1, 5], [4])]),
        ("segment_sum_float32_runtime_ids", [floats([4, 2, 2]), .int32([-3, -2, -1, 0], [4])]),
        ("unsorted_segment_sum_float32_runtime", [floats([5]), .int32([1, 1, 0, 3, 1], [5]), .int32([-1], [])]),
        ("unsorted_segment_sum_float32_runtime", [floats([5]), .int32([1, 1, 0, 4, 1], [5]), .int32([4], [])]),
        ("reverse_sequence_float32_batch2_seq0", [floats([4, 2, 3]), .int32([1, 5, 3], [3])]),
        ("range_int64_10_m4_runtime", [.int64([1], []), .int64([5], []), .int64([0], [])]),
        ("range_int64_10_m4_runtime", [.int64([.min], []), .int64([.max], []), .int64([1], [])]),
        ("range_int64_10_m4_runtime", [.int64([0], []), .int64([5], []), .int64([-1], [])]),
        ("range_float32_0p5_4p2_runtime", [.float([0], []), .float([1e30], []), .float([1e-30], [])]),
        ("topk_v2_float32_runtime_k", [floats([3, 8]), .int32([100], [])]),
        ("topk_v2_float32_runtime_k", [floats([3, 8]), .int32([-1], [])]),
        ("one_hot_float32_runtime_depth", [.int32([0, 1, 2, 1, 0], [5]), .int32([-1], [])]),
        ("broadcast_to_float32_runtime_shape", [floats([1, 3]), .int32([2, 2, 4], [3])]),
        ("broadcast_to_float32_runtime_shape", [floats([1, 3]), .int32([.max, .max, 3], [3])]),
        ("cumsum_float32_runtime_axis", [floats([3, 4]), .int32([7], [])]),
        ("sum_float32_runtime_axis", [floats([3, 4, 2]), .int32([5, 0], [2])]),
        ("fill_int32_runtime_dims", [.int32([-1, 3], [2]), .int32([4], [])]),
        ("gather_float32", [floats([4, 3]), .int32([3, 0, 4], [3])]),
        ("gather_nd_float32", [floats([3, 2, 2]), .int32([2, 1, 3, 0], [2, 2])]),
    ]

    @Test(arguments: 0..<rejected.count)
    func badValuesThrow(index: Int) {
        let (name, inputs) = Self.rejected[index]
        let model = SingleOperatorTests.folder.appendingPathComponent(name).appendingPathComponent("model.tflite")
        #expect(FileManager.default.fileExists(atPath: model.path), "fixture \(name) is missing")
        #expect(throws: (any Error).self, "\(name) with \(inputs.map(\.shape))") { try Self.run(name, inputs) }
    }

    @Test func extremeStartsAreClamped() throws {
        try Self.run(
            "dynamic_update_slice_float32_clamped",
            [Self.floats([4, 5]), Self.floats([2, 3]), .int32([.min, .max], [2])])
    }

    @Test func negativeSegmentIdsAreSkipped() throws {
        try Self.run(
            "unsorted_segment_sum_float32_runtime",
            [Self.floats([5]), .int32([-7, 1, 0, -1, 1], [5]), .int32([4], [])])
    }
}
