import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// UNIDIRECTIONAL_SEQUENCE_LSTM: LiteRT goldens (tools/make_lstm_fixture.py), a plain reference,
/// the int16 fixed-point activations, and state handling.
struct RecurrentLSTMTests {
    static let fixtures = TestPaths.packageRoot.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/lstm")
    static let cases = ["float", "float_peephole", "float_layernorm", "hybrid", "hybrid_asym", "int8", "int8_cifg_batch", "int8_layernorm", "int8_projection"]

    private func run(_ modelPath: String, _ inputs: [NumPyArray], invokes: Int = 1) throws -> [NumPyArray] {
        let interpreter = try Interpreter(modelPath: modelPath)
        try interpreter.allocateTensors()
        for (i, a) in inputs.enumerated() { try interpreter.copy(a.data, toInputAt: i) }
        var outputs = [NumPyArray]()
        for _ in 0..<invokes {
            try interpreter.invoke()
            outputs.append(NumPyArray(try interpreter.output(at: 0)))
        }
        return outputs
    }

    @Test("matches LiteRT", arguments: RecurrentLSTMTests.cases)
    func matchesLiteRT(_ name: String) throws {
        let folder = Self.fixtures.appendingPathComponent(name)
        let input = try NumPyArray(contentsOf: folder.appendingPathComponent("input_0.npy"))
        let expected = try NumPyArray(contentsOf: folder.appendingPathComponent("output_0.npy"))
        let actual = try run(folder.appendingPathComponent("model.tflite").path, [input])[0]
        #expect(actual.type == expected.type)
        #expect(actual.shape == expected.shape)
        let a = actual.doubleValues(), e = expected.doubleValues()
        if name.hasPrefix("int8") {
            // Integer LSTM: bit-exact.
            #expect(a == e, "\(name): integer outputs differ from LiteRT")
        } else {
            let diff = maxAbsDifference(a, e)
            #expect(diff <= 1e-5 * max(1, e.map(abs).max() ?? 0), "\(name): max diff \(diff)")
        }
    }

    @Test func stateCarriesOverBetweenInvocations() throws {
        let folder = Self.fixtures.appendingPathComponent("float")
        let input = try NumPyArray(contentsOf: folder.appendingPathComponent("input_0.npy"))
        let outputs = try run(folder.appendingPathComponent("model.tflite").path, [input], invokes: 2)
        // The second run starts from the first run's final state, so it differs.
        #expect(outputs[0].doubleValues() != outputs[1].doubleValues())
    }

    @Test func floatKernelMatchesPlainReference() throws {
        // Hand-built weights through the kernel's cell directly (CIFG off, peephole, projection, clipping).
        var rng = SplitMix64(seed: 11)
        func values(_ n: Int) -> [Float] { (0..<n).map { _ in Float(Double(rng.next() % 2001) / 1000 - 1) * 0.7 } }
        let (nIn, nCell, nOut, time) = (3, 4, 3, 5)
        let wi = (0..<4).map { _ in values(nCell * nIn) }
        let wr = (0..<4).map { _ in values(nCell * nOut) }
        let bias = (0..<4).map { _ in values(nCell) }
        let peep = (0..<3).map { _ in values(nCell) }
        let proj = values(nOut * nCell)
        let projBias = values(nOut)
        let x = values(time * nIn)

        let reference = ReferenceRecurrent.lstm(
            input: x.map(Double.init), batch: 1, time: time, inputSize: nIn, cell: nCell, output: nOut,
            weights: .init(
                inputWeights: wi.map { $0.map(Double.init) }, recurrentWeights: wr.map { $0.map(Double.init) },
                biases: bias.map { $0.map(Double.init) }, peephole: peep.map { $0.map(Double.init) },
                projection: proj.map(Double.init), projectionBias: projBias.map(Double.init), cellClip: 0.9, projClip: 0.8))

        var ours = [Float](repeating: 0, count: time * nOut)
        var outputState = [Float](repeating: 0, count: nOut)
        var cellState = [Float](repeating: 0, count: nCell)
        let shape = LSTMShape(batch: 1, time: time, input: nIn, cell: nCell, output: nOut, timeMajor: false)
        var cell = LSTMFloatCell(shape: shape, options: LSTMOptions(activation: 4, cellClip: 0.9, projClip: 0.8), hybrid: false)
        let keep = [wi, wr, bias, peep, [proj, projBias], [x]]
        try withExtendedLifetime(keep) {
            func buf(_ a: [Float]) -> UnsafeBufferPointer<Float> {
                let p = UnsafeMutableBufferPointer<Float>.allocate(capacity: a.count)
                _ = p.initialize(from: a)
                return UnsafeBufferPointer(p)
            }
            cell.inputWeights = wi.map { .init(rows: nCell, cols: nIn, floats: buf($0), int8: nil, scale: 0) }
            cell.recurrentWeights = wr.map { .init(rows: nCell, cols: nOut, floats: buf($0), int8: nil, scale: 0) }
            cell.biases = bias.map { buf($0) }
            cell.layerNorm = [nil, nil, nil, nil]
            cell.peephole = peep
            cell.projection = .init(rows: nOut, cols: nCell, floats: buf(proj), int8: nil, scale: 0)
            cell.projectionBias = buf(projBias)
            for t in 0..<time {
                x.withUnsafeBufferPointer { xs in
                    ours.withUnsafeMutableBufferPointer { o in
                        cell.step(
                            input: xs.baseAddress! + t * nIn, batch: 1, outputState: &outputState, cellState: &cellState,
                            output: o.baseAddress! + t * nOut)
                    }
                }
            }
        }
        let diff = maxAbsDifference(ours.map(Double.init), reference)
        #expect(diff < 1e-5, "max diff \(diff)")
    }

    @Test func int16ActivationsAreCloseToExactEverywhere() {
        var worstSigmoid = 0.0, worstTanh = 0.0
        for raw in Int32(Int16.min)...Int32(Int16.max) {
            let q = Int16(raw)
            let x = Double(raw) / 4096
            let s = Double(Int16FixedPoint.logistic(q, integerBits: 3)) / 32768
            let t = Double(Int16FixedPoint.tanh(q, integerBits: 3)) / 32768
            worstSigmoid = max(worstSigmoid, abs(s - 1 / (1 + exp(-x))))
            worstTanh = max(worstTanh, abs(t - tanh(x)))
        }
        #expect(worstSigmoid < 1e-3)
        #expect(worstTanh < 1e-3)
        #expect(Int16FixedPoint.logistic(0, integerBits: 3) == 16384)
        #expect(Int16FixedPoint.tanh(0, integerBits: 3) == 0)
        #expect(Int16FixedPoint.tanh(Int16.min, integerBits: 3) <= -32700)
    }

    @Test(.enabled(if: TestPaths.hasSharedModels, "needs ../shared/models beside the checkout"))
    func realModelLSTMNodePreparesAsInteger() throws {
        let model = try Model(path: TestPaths.sharedModel("keras_lstm_mnist_ptq.tflite"))
        let code = try #require(model.operatorCodes.first { $0.builtin == .unidirectionalSequenceLstm })
        #expect(OpRegistry.factory(for: code) != nil)
    }
}
