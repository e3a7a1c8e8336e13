import Foundation
import Testing

@testable import TFLiteRuntime

/// Quantized MAX_POOL_2D / AVERAGE_POOL_2D against `ReferenceQuantizedPooling`, exact equality, plus
/// LiteRT's rounding average checked by hand.
@Suite("Quantized pooling kernels")
struct QuantizedPoolingTests {
    struct Case: CustomStringConvertible, Sendable {
        var type: TensorType
        var average: Bool
        var same: Bool
        var activation: FusedActivation
        var description: String { "\(type.name) \(average ? "avg" : "max") \(same ? "SAME" : "VALID") \(activation)" }
    }

    static let cases: [Case] = [TensorType.uint8, .int8, .int16].flatMap { t in
        [
            Case(type: t, average: true, same: true, activation: .none),
            Case(type: t, average: false, same: true, activation: .relu6),
            Case(type: t, average: true, same: false, activation: .relu),
            Case(type: t, average: false, same: false, activation: .none),
        ]
    }

    @Test(arguments: cases, [1, 2])
    func poolMatchesReference(_ c: Case, threads: Int) throws {
        var rng = SplitMix64(seed: 17)
        let shape = [2, 9, 8, 7]
        let zero: Int64 = c.type == .uint8 ? 128 : (c.type == .int8 ? -3 : 0)
        let scale: Float = c.type == .int16 ? 0.001 : 0.05
        let input = QuantizedTestOperand(
            shape: shape, type: c.type, ints: QuantizedTestValues.ints(shape.reduce(1, *), c.type, &rng), scales: [scale],
            zeroPoints: [zero])
        let output = QuantizedTestOperand(shape: [], type: c.type, scales: [scale], zeroPoints: [zero])
        let tn = try QuantizedTestNode(
            c.average ? .averagePool2D : .maxPool2D,
            options: [0: c.same ? 0 : 1, 1: 2, 2: 2, 3: 3, 4: 3, 5: Int32(c.activation.rawValue)], inputs: [input],
            output: output, threads: threads)
        let (outShape, got) = try tn.run()
        let g = try WindowGeometry(
            node: tn.node, inputShape: shape, filterHeight: 3, filterWidth: 3, strideHeight: 2, strideWidth: 2,
            padding: c.same ? .same : .valid)
        #expect(outShape == [g.batch, g.outputHeight, g.outputWidth, g.inputChannels])
        let r = c.type.quantizedRange!
        let range = FixedPoint.activationRange(c.activation, scale: scale, zeroPoint: Int(zero), qmin: r.min, qmax: r.max)
        let want = ReferenceQuantizedPooling.pool(
            input.ints.map { Int32($0) }, g, average: c.average, min: range.min, max: range.max)
        #expect(got == want)
    }

    @Test func roundingAverageRoundsHalvesAwayFromZero() {
        #expect(FixedPoint.roundingAverage(5, count: 2) == 3)
        #expect(FixedPoint.roundingAverage(-5, count: 2) == -3)
        #expect(FixedPoint.roundingAverage(4, count: 3) == 1)
        #expect(FixedPoint.roundingAverage(-4, count: 3) == -1)
        #expect(FixedPoint.roundingAverage(0, count: 4) == 0)
        #expect(FixedPoint.roundingAverage(7, count: 4) == 2)
        #expect(FixedPoint.roundingAverage(-6, count: 4) == -2)
    }

    @Test func averageOfTwoInt8ValuesHandChecked() throws {
        // A 1x2 window over [-3, -2] (sum -5, count 2) averages to -3 (-2.5 away from zero), and over [1, 2] to 2.
        let input = QuantizedTestOperand(shape: [1, 1, 4, 1], type: .int8, ints: [-3, -2, 1, 2], scales: [1], zeroPoints: [0])
        let output = QuantizedTestOperand(shape: [], type: .int8, scales: [1], zeroPoints: [0])
        let tn = try QuantizedTestNode(
            .averagePool2D, options: [0: 1, 1: 2, 2: 1, 3: 2, 4: 1], inputs: [input], output: output)
        #expect(try tn.run().values == [-3, 2])
    }

    @Test func rejectsUnusableScales() throws {
        let input = QuantizedTestOperand(shape: [1, 2, 2, 1], type: .int8, ints: [1, 2, 3, 4], scales: [0], zeroPoints: [0])
        let output = QuantizedTestOperand(shape: [], type: .int8, scales: [0], zeroPoints: [0])
        let tn = try QuantizedTestNode(
            .maxPool2D, options: [0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: Int32(FusedActivation.relu.rawValue)], inputs: [input],
            output: output)
        #expect(throws: RuntimeError.self) { try tn.run() }
        let nanFilter = QuantizedTestOperand(
            shape: [2, 1, 1, 1], type: .int8, ints: [1, 2], scales: [.nan, 1], axis: 0, constant: true)
        let x = QuantizedTestOperand(shape: [1, 1, 1, 1], type: .int8, ints: [3], scales: [1], zeroPoints: [0])
        let y = QuantizedTestOperand(shape: [], type: .int8, scales: [1], zeroPoints: [0])
        let conv = try QuantizedTestNode(.conv2D, options: [0: 1, 1: 1, 2: 1], inputs: [x, nanFilter, nil], output: y)
        #expect(throws: RuntimeError.self) { try conv.run() }
    }
}
