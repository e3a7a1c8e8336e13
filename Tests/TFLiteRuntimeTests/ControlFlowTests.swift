import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// Control flow over subgraphs (IF, WHILE, CALL_ONCE) and resource variables, on models made by
/// TensorFlow's converter (`tools/make_control_flow_models.py`), replayed invoke after invoke in one
/// interpreter and compared with what LiteRT computed for the same invokes: float outputs within
/// 1e-5 × max(1, max |LiteRT|), others exactly.
@Suite("Control flow and variables against LiteRT")
struct ControlFlowTests {
    struct Manifest: Decodable {
        struct Case: Decodable {
            let name: String
            let operators: [String]
            let invokes: Int
            let inputs: Int
            let outputs: Int
        }
        let cases: [Case]
    }

    static let folder = TestPaths.packageRoot.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/control_flow")

    static var cases: [String] {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")),
            let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
        else { return [] }
        return manifest.cases.map(\.name)
    }

    @Test("fixtures are present")
    func present() { #expect(ControlFlowTests.cases.count >= 8) }

    @Test("Interpreter.cancel() stops a WHILE loop of two billion turns; the next invoke runs whole")
    func cancelStopsALongLoop() throws {
        let caseFolder = ControlFlowTests.folder.appendingPathComponent("while_loop")
        let interpreter = try Interpreter(modelPath: caseFolder.appendingPathComponent("model.tflite").path)
        try interpreter.allocateTensors()
        // Inputs: x (float32 [3]) and n (int32 scalar), the loop's turn count.
        let x = try NumPyArray(contentsOf: caseFolder.appendingPathComponent("input_1_0.npy"))
        try interpreter.copy(x.data, toInputAt: 0)
        try interpreter.copy(withUnsafeBytes(of: Int32(2_000_000_000)) { Data($0) }, toInputAt: 1)
        let canceller = DispatchWorkItem { interpreter.cancel() }
        // A queue of its own, not DispatchQueue.global(): that pool is shared with the running tests
        // (see CorruptModelTests.exercise).
        DispatchQueue(label: "cancel test").asyncAfter(deadline: .now() + 0.3, execute: canceller)
        var message = ""
        do { try interpreter.invoke() } catch { message = "\(error)" }
        #expect(message.contains("cancelled"), "the loop was not stopped: \(message)")
        // The same interpreter then runs the fixture's n = 4 case to LiteRT's answer.
        try interpreter.copy(try NumPyArray(contentsOf: caseFolder.appendingPathComponent("input_1_1.npy")).data, toInputAt: 1)
        try interpreter.invoke()
        let expected = try NumPyArray(contentsOf: caseFolder.appendingPathComponent("output_1_0.npy")).doubleValues()
        let actual = NumPyArray(try interpreter.output(at: 0)).doubleValues()
        #expect(actual.count == expected.count && maxAbsDifference(actual, expected) <= 1e-5)
    }

    @Test("matches LiteRT invoke after invoke", arguments: ControlFlowTests.cases)
    func matches(_ name: String) throws {
        let data = try Data(contentsOf: ControlFlowTests.folder.appendingPathComponent("manifest.json"))
        let entry = try #require(try JSONDecoder().decode(Manifest.self, from: data).cases.first { $0.name == name })
        let caseFolder = ControlFlowTests.folder.appendingPathComponent(name)
        for threads in [1, 2] {
            let interpreter = try Interpreter(
                modelPath: caseFolder.appendingPathComponent("model.tflite").path, options: .init(threadCount: threads))
            try interpreter.allocateTensors()
            for k in 0..<entry.invokes {
                for i in 0..<entry.inputs {
                    let strings = caseFolder.appendingPathComponent("input_\(k)_\(i).json")
                    if FileManager.default.fileExists(atPath: strings.path) {
                        try interpreter.copy(strings: try JSONDecoder().decode([String].self, from: Data(contentsOf: strings)), toInputAt: i)
                        continue
                    }
                    let array = try NumPyArray(contentsOf: caseFolder.appendingPathComponent("input_\(k)_\(i).npy"))
                    if try interpreter.input(at: i).shape.dimensions != array.shape {
                        try interpreter.resizeInput(at: i, to: Tensor.Shape(array.shape))
                        try interpreter.allocateTensors()
                    }
                    try interpreter.copy(array.data, toInputAt: i)
                }
                try interpreter.invoke()
                for o in 0..<entry.outputs {
                    let strings = caseFolder.appendingPathComponent("output_\(k)_\(o).json")
                    if FileManager.default.fileExists(atPath: strings.path) {
                        let want = try JSONDecoder().decode([String].self, from: Data(contentsOf: strings))
                        #expect(try interpreter.outputStrings(at: o) == want, "\(name) invoke \(k) output \(o)")
                        continue
                    }
                    let expected = try NumPyArray(contentsOf: caseFolder.appendingPathComponent("output_\(k)_\(o).npy"))
                    let actual = NumPyArray(try interpreter.output(at: o))
                    #expect(actual.type == expected.type, "\(name) invoke \(k) output \(o) type")
                    #expect(actual.shape == expected.shape, "\(name) invoke \(k) output \(o) shape")
                    let a = actual.doubleValues()
                    let e = expected.doubleValues()
                    let scale = max(1, e.map(abs).max() ?? 0)
                    #expect(a.count == e.count && maxAbsDifference(a, e) <= 1e-5 * scale,
                        "\(name) invoke \(k) output \(o): \(a) vs LiteRT \(e)")
                }
            }
        }
    }

    @Test("a variable keeps its value from one invoke to the next, per interpreter")
    func variableState() throws {
        let path = ControlFlowTests.folder.appendingPathComponent("variable_counter/model.tflite").path
        let first = try Interpreter(modelPath: path)
        let second = try Interpreter(modelPath: path)
        for interpreter in [first, second] { try interpreter.allocateTensors() }
        let ones = Data([Float](repeating: 1, count: 3).withUnsafeBytes { Array($0) })
        try first.copy(ones, toInputAt: 0)
        try first.invoke()
        try first.invoke()
        try second.copy(ones, toInputAt: 0)
        try second.invoke()
        let a = try first.output(at: 0).data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let b = try second.output(at: 0).data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // initial [0.5, -1, 2] + 2·x per invoke, + 1 on the way out
        #expect(a == [5.5, 4, 7])
        #expect(b == [3.5, 2, 5])
    }

    @Test("a subgraph index out of range is refused when the interpreter is created")
    func badSubgraphIndex() throws {
        var bytes = try [UInt8](Data(contentsOf: ControlFlowTests.folder.appendingPathComponent("if_branch_shapes/model.tflite")))
        // Point IF's then-branch at a subgraph that does not exist: find the IfOptions table through
        // the model (the first subgraph's IF operator) and patch its first field.
        let model = try Model(data: Data(bytes))
        let graph = model.subgraphs[0]
        let ifIndex = try #require(graph.operators.firstIndex { model.operatorCodes[$0.opcodeIndex].builtin == .if })
        let table = try #require(try model.options(of: graph.operators[ifIndex], what: "IF options"))
        let field = try #require(try table.position(ofField: 0, size: 4))
        withUnsafeBytes(of: Int32(99).littleEndian) { for (i, b) in $0.enumerated() { bytes[field + i] = b } }
        let interpreter = try Interpreter(modelData: Data(bytes))
        #expect(throws: InterpreterError.self) { try interpreter.allocateTensors() }
    }
}
