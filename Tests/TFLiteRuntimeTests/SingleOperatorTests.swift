import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// Every single-operator case LiteRT runs (`tools/make_op_models.py`), run here and compared with
/// LiteRT's output: integer and bool outputs exactly, float outputs within the case's tolerance
/// (max |ours − LiteRT| ≤ tolerance × max(1, max |LiteRT|)).
///
/// Cases this runtime does not run yet are listed in `single_ops_pending.txt`; each of them must
/// still fail here (a pending case that starts passing fails the suite until it is taken off the
/// list), so the list is always the truth. `OPENMLKIT_WRITE_PENDING=1 swift test --filter
/// SingleOperatorTests` rewrites the list from what fails now.
@Suite("Single operators against LiteRT")
struct SingleOperatorTests {
    struct Manifest: Decodable {
        struct Case: Decodable {
            let name: String
            let op: String
            let version: Int
            let litert: String
            let run_inputs: Int?
            let tolerance: Double?
            let label: String?
        }
        let cases: [Case]
    }

    static let folder = TestPaths.packageRoot.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/single_ops")
    static let pendingFile = TestPaths.packageRoot.appendingPathComponent(
        "Tests/TFLiteRuntimeTests/Fixtures/single_ops_pending.txt")

    static func manifest() throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
    }

    /// The cases LiteRT runs: the denominator.
    static var runnable: [Manifest.Case] { ((try? manifest().cases) ?? []).filter { $0.litert == "runs" } }

    static func pending() -> Set<String> {
        guard let text = try? String(contentsOf: pendingFile, encoding: .utf8) else { return [] }
        return Set(
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }

    /// Float cases that must match LiteRT bit for bit, at one thread and at two (case-name prefixes):
    /// LOGISTIC, TANH, SOFTMAX and LOG_SOFTMAX, whose last-bit differences a following dynamic-range
    /// layer turns into whole quanta (`tools/op_cases/float_exact.py` has the dense grids).
    static let bitExactPrefixes = [
        "exact_", "logistic_float32", "tanh_float32", "softmax_float32", "log_softmax_float32",
        "transpose_conv_float32", "resize_bilinear_float32", "resize_nearest_float32",
    ]

    /// Float cases whose every output was bit-identical to LiteRT's in the last `failure` call.
    nonisolated(unsafe) static var lastFloatExact: Bool? = nil

    /// Runs one case at `threads`; returns nil when every output matches, else why not.
    static func failure(_ entry: Manifest.Case, threads: Int) -> String? {
        lastFloatExact = nil
        let caseFolder = folder.appendingPathComponent(entry.name)
        do {
            let interpreter = try Interpreter(
                modelPath: caseFolder.appendingPathComponent("model.tflite").path, options: .init(threadCount: threads))
            var inputs = [NumPyArray]()
            // String tensors are stored as JSON lists of their strings (`input_<i>.json`).
            var stringInputs = [Int: [String]]()
            for i in 0..<(entry.run_inputs ?? interpreter.inputTensorCount) {
                let json = caseFolder.appendingPathComponent("input_\(i).json")
                if FileManager.default.fileExists(atPath: json.path) {
                    stringInputs[i] = try JSONDecoder().decode([String].self, from: Data(contentsOf: json))
                    inputs.append(NumPyArray(type: .uint8, shape: [0], data: Data()))
                    continue
                }
                let array = try NumPyArray(contentsOf: caseFolder.appendingPathComponent("input_\(i).npy"))
                if try interpreter.input(at: i).shape.dimensions != array.shape {
                    try interpreter.resizeInput(at: i, to: Tensor.Shape(array.shape))
                }
                inputs.append(array)
            }
            try interpreter.allocateTensors()
            for (i, array) in inputs.enumerated() {
                if let strings = stringInputs[i] {
                    try interpreter.copy(strings: strings, toInputAt: i)
                } else {
                    try interpreter.copy(array.data, toInputAt: i)
                }
            }
            try interpreter.invoke()
            for o in 0..<interpreter.outputTensorCount {
                let json = caseFolder.appendingPathComponent("output_\(o).json")
                if FileManager.default.fileExists(atPath: json.path) {
                    let want = try JSONDecoder().decode([String].self, from: Data(contentsOf: json))
                    let got = try interpreter.outputStrings(at: o)
                    guard got == want else { return "output \(o) strings \(got.prefix(8)), LiteRT \(want.prefix(8))" }
                    continue
                }
                let expected = try NumPyArray(contentsOf: caseFolder.appendingPathComponent("output_\(o).npy"))
                let actual = NumPyArray(try interpreter.output(at: o))
                guard actual.type == expected.type else {
                    return "output \(o) has type \(actual.type.name), LiteRT \(expected.type.name)"
                }
                guard actual.shape == expected.shape else {
                    return "output \(o) has shape \(actual.shape), LiteRT \(expected.shape)"
                }
                let isFloat = [.float32, .float16, .float64, .complex64].contains(expected.type)
                if !isFloat {
                    if actual.data != expected.data { return "output \(o) differs from LiteRT's (compared exactly)" }
                    continue
                }
                let a = actual.doubleValues()
                let e = expected.doubleValues()
                for (x, y) in zip(a, e) where x.isNaN != y.isNaN {
                    return "output \(o): NaN in one runtime only"
                }
                let finite = zip(a, e).filter { !$0.0.isNaN && !$0.1.isNaN }
                if let bad = finite.first(where: { $0.0.isInfinite || $0.1.isInfinite ? $0.0 != $0.1 : false }) {
                    return "output \(o): \(bad.0) where LiteRT has \(bad.1)"
                }
                lastFloatExact = (lastFloatExact ?? true) && actual.data == expected.data
                let values = finite.filter { !$0.1.isInfinite }
                let scale = max(1, values.map { abs($0.1) }.max() ?? 0)
                let diff = values.map { abs($0.0 - $0.1) }.max() ?? 0
                let tolerance = (entry.tolerance ?? 1e-5) * scale
                if diff > tolerance { return "output \(o): max diff \(diff) > \(tolerance)" }
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("the manifest has cases LiteRT runs")
    func manifestPresent() throws {
        #expect(SingleOperatorTests.runnable.count > 0)
    }

    @Test("each case matches LiteRT, or is pending and still fails")
    func everyCase() throws {
        let pending = SingleOperatorTests.pending()
        var passed = [String]()
        var failing = [(String, String)]()
        var floatCases = [String]()
        var floatExact = [String]()
        for entry in SingleOperatorTests.runnable {
            var why = SingleOperatorTests.failure(entry, threads: 1)
            let exactAtOne = SingleOperatorTests.lastFloatExact
            if why == nil { why = SingleOperatorTests.failure(entry, threads: 2) }
            if let why { failing.append((entry.name, why)) } else { passed.append(entry.name) }
            if why == nil, let exact = exactAtOne {
                floatCases.append(entry.name)
                if exact && SingleOperatorTests.lastFloatExact == true { floatExact.append(entry.name) }
            }
        }
        let total = SingleOperatorTests.runnable.count
        let operators = Set(SingleOperatorTests.runnable.map(\.op))
        let passingOps = Set(SingleOperatorTests.runnable.filter { passed.contains($0.name) }.map(\.op))
        print(
            "single operators: \(passed.count) of \(total) cases LiteRT runs match it here "
                + "(\(passingOps.count) of \(operators.count) operators with every case or some); \(failing.count) pending; "
                + "\(floatExact.count) of \(floatCases.count) passing float cases bit-identical")
        if ProcessInfo.processInfo.environment["OPENMLKIT_LIST_INEXACT"] == "1" {
            let inexact = floatCases.filter { !floatExact.contains($0) }
            print("float cases within tolerance but not bit-identical: \(inexact.joined(separator: " "))")
        }
        if ProcessInfo.processInfo.environment["OPENMLKIT_WRITE_PENDING"] == "1" {
            let text =
                "# Single-operator cases LiteRT runs that this runtime does not run yet (SingleOperatorTests).\n"
                + failing.map { "\($0.0)" }.sorted().joined(separator: "\n") + "\n"
            try text.write(to: SingleOperatorTests.pendingFile, atomically: true, encoding: .utf8)
            return
        }
        for (name, why) in failing where !pending.contains(name) {
            Issue.record("\(name): \(why)")
        }
        for name in passed where pending.contains(name) {
            Issue.record("\(name) now matches LiteRT: take it off single_ops_pending.txt")
        }
        let mustBeExact = floatCases.filter { name in
            SingleOperatorTests.bitExactPrefixes.contains { name.hasPrefix($0) }
        }
        for name in mustBeExact where !floatExact.contains(name) {
            Issue.record("\(name) is within tolerance but no longer bit-identical to LiteRT (it must be)")
        }
        let known = Set(SingleOperatorTests.runnable.map(\.name))
        for name in pending where !known.contains(name) {
            Issue.record("single_ops_pending.txt lists \(name), which is not a case LiteRT runs")
        }
    }

    @Test("mlkit ops' types are exactly those of the cases that match (OpRegistry+VerifiedTypes.swift is current)")
    func verifiedTypesCurrent() throws {
        let pending = SingleOperatorTests.pending()
        var expected = [String: Set<String>]()
        for entry in SingleOperatorTests.runnable where !pending.contains(entry.name) {
            expected[entry.op, default: []].insert(entry.label ?? "?")
        }
        let builtinNames = Set(OpRegistry.supportedBuiltins.map(\.name))
        let recorded = OpRegistry.verifiedTypes.filter { builtinNames.contains($0.key) || expected[$0.key] != nil }
        for (op, labels) in expected {
            #expect(Set(recorded[op] ?? []) == labels, "\(op): table \(recorded[op] ?? []), cases \(labels.sorted()); run tools/make_operator_tables.py")
        }
        let wholeModelOps: Set<String> = [
            "IF", "WHILE", "CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "HASHTABLE",
            "HASHTABLE_IMPORT", "HASHTABLE_FIND", "HASHTABLE_SIZE",
        ]
        for (op, labels) in recorded
        where expected[op] == nil && !OpRegistry.customs.keys.contains(op) && !wholeModelOps.contains(op) {
            Issue.record("\(op) has types \(labels) in the table but no matching case; run tools/make_operator_tables.py")
        }
    }
}
