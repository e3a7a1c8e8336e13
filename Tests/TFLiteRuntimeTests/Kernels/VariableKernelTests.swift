import Foundation
import Testing

@testable import TFLiteRuntime

/// ASSIGN_VARIABLE and READ_VARIABLE across invokes, as the executor drives them: READ_VARIABLE is
/// prepared at run time, and skipped (`isStillPrepared`) only while neither its variable's layout
/// nor its output's changed; ASSIGN_VARIABLE copies in place only while the same value tensor and
/// the variable keep their layouts. A variable that changes shape between invokes must be read
/// with its new shape and values, never the stale ones.
@Suite struct VariableKernelTests {
    /// An interpreter's shared state (the resources live there), from the committed counter model.
    static func context() throws -> ExecutionContext {
        let path = TestPaths.packageRoot
            .appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/control_flow/variable_counter/model.tflite").path
        return ExecutionContext(model: try Model(path: path), resolver: OperatorResolver(), threadCount: 1)
    }

    final class Harness {
        let kit = ShapeOpsTestKit()
        let context: ExecutionContext
        let handle: RuntimeTensor
        private var kernels: [OpKernel] = []

        init() throws {
            context = try VariableKernelTests.context()
            let id = context.resources.id(container: "", sharedName: "test_variable")
            handle = try kit.tensor(.int32, [], bytes: ShapeOpsTestKit.bytes([id]))
        }

        func node(_ op: BuiltinOperator, _ inputs: [RuntimeTensor], _ outputs: [RuntimeTensor]) -> Node {
            let node = Node(
                index: 0, code: OperatorCode(builtin: op, customCode: nil, version: 1), inputs: inputs, outputs: outputs,
                intermediates: [], options: nil, customOptions: UnsafeRawBufferPointer(start: nil, count: 0), threadCount: 1)
            node.context = context
            return node
        }

        /// The executor's run of a node: prepared at run time unless it says its prepare holds.
        func run(_ kernel: OpKernel, _ node: Node, runtimePrepare: Bool) throws {
            node.isRunning = true
            defer { node.isRunning = false }
            if runtimePrepare && !kernel.isStillPrepared(node) {
                try kernel.prepare(node)
                for t in node.outputs { try t.allocateOwned() }
            }
            try kernel.eval(node)
        }
    }

    static func floats(_ t: RuntimeTensor) -> [Float] { ShapeOpsTestKit.values(t, as: Float.self) }

    static func write(_ values: [Float], into t: RuntimeTensor) {
        let p = t.data!.assumingMemoryBound(to: Float.self)
        for (i, v) in values.enumerated() { p[i] = v }
    }

    @Test func readFollowsEveryChangeOfShapeAndValue() throws {
        let h = try Harness()
        let pair = try h.kit.floats([1, 2], [2])
        let triple = try h.kit.floats([4, 5, 6], [3])
        let out = h.kit.output(.float32)
        let assignPair = h.node(.assignVariable, [h.handle, pair], [])
        let assignTriple = h.node(.assignVariable, [h.handle, triple], [])
        let read = h.node(.readVariable, [h.handle], [out])
        let assignPairKernel = try AssignVariableKernel(assignPair)
        let assignTripleKernel = try AssignVariableKernel(assignTriple)
        let readKernel = try ReadVariableKernel(read)
        try assignPairKernel.prepare(assignPair)
        try assignTripleKernel.prepare(assignTriple)
        // Prepared before values are known (at allocateTensors), it defers to run time.
        try readKernel.prepare(read)
        #expect(read.hasDynamicOutputs)

        try h.run(assignPairKernel, assignPair, runtimePrepare: false)
        try h.run(readKernel, read, runtimePrepare: true)
        #expect(out.shape == [2] && Self.floats(out) == [1, 2])
        #expect(readKernel.isStillPrepared(read))

        // Same value tensor, same layout, new contents: copied in place, read without a prepare.
        Self.write([9, 10], into: pair)
        try h.run(assignPairKernel, assignPair, runtimePrepare: false)
        #expect(readKernel.isStillPrepared(read))
        try h.run(readKernel, read, runtimePrepare: true)
        #expect(out.shape == [2] && Self.floats(out) == [9, 10])

        // Another assignment changes the variable's shape: the read is prepared again.
        try h.run(assignTripleKernel, assignTriple, runtimePrepare: false)
        #expect(!readKernel.isStillPrepared(read))
        try h.run(readKernel, read, runtimePrepare: true)
        #expect(out.shape == [3] && Self.floats(out) == [4, 5, 6])

        // Back to two elements from the first node, whose own layout did not change but the
        // variable's did: no stale in-place copy, and the read follows.
        Self.write([7, 8], into: pair)
        try h.run(assignPairKernel, assignPair, runtimePrepare: false)
        #expect(!readKernel.isStillPrepared(read))
        try h.run(readKernel, read, runtimePrepare: true)
        #expect(out.shape == [2] && Self.floats(out) == [7, 8])
    }

    @Test func readingBeforeAnyAssignmentFails() throws {
        let h = try Harness()
        let out = h.kit.output(.float32)
        let read = h.node(.readVariable, [h.handle], [out])
        let kernel = try ReadVariableKernel(read)
        try kernel.prepare(read)
        #expect(!kernel.isStillPrepared(read))
        #expect(throws: RuntimeError.self) { try h.run(kernel, read, runtimePrepare: true) }
    }

    @Test func variableValueWritesOnlyIntoTheSameLayout() throws {
        let h = try Harness()
        let variable = ResourceVariable()
        let node = h.node(.readVariable, [h.handle], [])
        #expect(!variable.isAssigned && variable.storage == nil)
        try variable.assign(from: try h.kit.floats([1, 2, 3], [3]), node)
        let version = variable.layoutVersion
        try variable.assign(from: try h.kit.floats([4, 5, 6], [3]), node)
        #expect(variable.layoutVersion == version && variable.byteCount == 12)
        try variable.assign(from: try h.kit.floats([4, 5, 6, 7], [2, 2]), node)
        #expect(variable.layoutVersion != version && variable.shape == [2, 2])
        let wrong = try h.kit.floats([0, 0, 0, 0], [4])
        #expect(throws: RuntimeError.self) { try variable.write(to: wrong, node, role: "output") }
        let right = try h.kit.floats([0, 0, 0, 0], [2, 2])
        try variable.write(to: right, node, role: "output")
        #expect(Self.floats(right) == [4, 5, 6, 7])
    }
}
