/// VAR_HANDLE: outputs the id (a resource tensor holding one int32) of the variable named by its
/// container and shared name; the same name gives the same variable in every subgraph.
final class VarHandleKernel: OpKernel {
    let parameters: VarHandleParameters
    /// The id, looked up once: a name keeps its id for the interpreter's life, and this kernel
    /// belongs to one interpreter (hashing the two names on every invoke cost more than the rest).
    private var id: Int32?

    init(_ node: Node) throws {
        try node.expect(inputs: 0, outputs: 1)
        parameters = try VarHandleParameters(node)
    }

    func prepare(_ node: Node) throws {
        try node.setOutput(0, type: .resource, shape: [])
    }

    func eval(_ node: Node) throws {
        let id: Int32
        if let known = self.id {
            id = known
        } else {
            guard let context = node.context else { throw node.error("has no interpreter context") }
            id = context.resources.id(container: parameters.container, sharedName: parameters.sharedName)
            self.id = id
        }
        let y = try node.output(0)
        guard let data = y.data, y.byteCount >= 4 else { throw node.error("output has no memory") }
        data.storeBytes(of: id, as: Int32.self)
    }
}

/// ASSIGN_VARIABLE: stores input 1 (any type and shape) in the variable whose handle is input 0.
final class AssignVariableKernel: OpKernel {
    private var variables = VariableLookup()

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 0)
    }

    func prepare(_ node: Node) throws {
        try node.expect(try node.input(0), type: .resource, .int32, role: "variable handle")
    }

    func eval(_ node: Node) throws {
        // The common case, a streaming model's state written back each invoke: the same variable
        // from the same value tensor, neither of whose layouts changed since the last assignment.
        if let (destination, source, count) = unchanged(node) {
            destination.copyMemory(from: source, byteCount: count)
            return
        }
        let variable = try variables.variable(try node.input(0), node)
        let value = try node.input(1)
        try variable.assign(from: value, node)
        last = value.type == .string ? nil : (variable.layoutVersion, value.layoutVersion)
    }

    /// The layout versions of the variable and of the value after the last assignment.
    private var last: (variable: Int, value: Int)?

    /// The copy to make (into the variable's block) when nothing changed; its bindings end here,
    /// so that `eval` holds no reference across the copy.
    @inline(never)
    private func unchanged(_ node: Node) -> (UnsafeMutableRawPointer, UnsafeRawPointer, Int)? {
        guard let last, let handle = node.inputs[0], let value = node.inputs[1], let cached = variables.cached(handle)
        else { return nil }
        // Read through a closure that captures nothing (capturing the tensors retained them).
        let (version, block, count) = cached._withUnsafeGuaranteedRef { ($0.layoutVersion, $0.storage, $0.byteCount) }
        guard version == last.variable, value.layoutVersion == last.value, let data = value.data, value.byteCount >= count,
            let block
        else { return nil }
        return (block, UnsafeRawPointer(data), count)
    }
}

/// READ_VARIABLE: outputs the current value of the variable whose handle is input 0; reading a
/// variable nothing has assigned is an error. The output's shape is the value's, known at invoke:
/// the node is prepared at run time, but only again when the variable's or the output's layout
/// changed since (`isStillPrepared`), and then it copies the bytes without re-checking shapes.
final class ReadVariableKernel: OpKernel {
    private var variables = VariableLookup()
    /// The handle id, the variable's layout version and the output's, at the last run-time prepare.
    private var prepared: (id: Int32, variable: Int, output: Int)?

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        prepared = nil
        let handle = try node.input(0)
        try node.expect(handle, type: .resource, .int32, role: "variable handle")
        guard node.isRunning else { return node.markOutputsDynamic() }
        let variable = try variables.assigned(handle, node)
        let y = try node.output(0)
        if y.type != variable.type || y.shape != variable.shape {
            try node.setOutput(0, type: variable.type, shape: variable.shape)
        }
        prepared = (try Variables.id(handle, node), variable.layoutVersion, y.layoutVersion)
    }

    /// The copy to make (variable block, output bytes, byte count) when nothing has changed since
    /// the last run-time prepare; its bindings end here, so that `eval` holds no reference across
    /// the copy.
    @inline(never)
    private func unchanged(_ node: Node) -> (UnsafeRawPointer, UnsafeMutableRawPointer, Int)? {
        guard let prepared, let handle = node.inputs[0], let y = node.outputs.first, let cached = variables.cached(handle),
            prepared.id == variables.cachedID
        else { return nil }
        // Read through a closure that captures nothing (capturing the tensors retained them).
        let (version, type, block, count) = cached._withUnsafeGuaranteedRef {
            ($0.layoutVersion, $0.type, $0.storage, $0.byteCount)
        }
        guard version == prepared.variable, y.layoutVersion == prepared.output, type != .string, let block,
            let destination = y.data, y.byteCount >= count
        else { return nil }
        return (UnsafeRawPointer(block), destination, count)
    }

    func isStillPrepared(_ node: Node) -> Bool { unchanged(node) != nil }

    func eval(_ node: Node) throws {
        if let (source, destination, count) = unchanged(node) {
            destination.copyMemory(from: source, byteCount: count)
            return
        }
        try variables.assigned(try node.input(0), node).write(to: try node.output(0), node, role: "output")
    }
}

/// The variable a kernel's handle names, remembered with its id: the id a handle holds is the
/// same on every invoke, and looking the variable up through the interpreter each time (a weak
/// reference and a dictionary) cost more than copying its bytes.
struct VariableLookup {
    private var last: ResourceVariable?
    /// `last` again, unretained, for the per-invoke checks (`last` keeps it alive).
    private var unretained: Unmanaged<ResourceVariable>?
    private(set) var cachedID: Int32 = -1

    mutating func variable(_ handle: RuntimeTensor, _ node: Node) throws -> ResourceVariable {
        let id = try Variables.id(handle, node)
        if let last, cachedID == id { return last }
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let variable = context.resources.variable(id)
        (last, unretained, cachedID) = (variable, Unmanaged.passUnretained(variable), id)
        return variable
    }

    /// The remembered variable, unretained, when `handle` still holds its id.
    @inline(__always)
    func cached(_ handle: RuntimeTensor) -> Unmanaged<ResourceVariable>? {
        guard let data = handle.data, handle.byteCount >= 4, data.loadUnaligned(as: Int32.self) == cachedID else {
            return nil
        }
        return unretained
    }

    /// The variable, which must have been assigned.
    mutating func assigned(_ handle: RuntimeTensor, _ node: Node) throws -> ResourceVariable {
        let variable = try variable(handle, node)
        guard variable.isAssigned else {
            throw node.error("reads variable \(try Variables.id(handle, node)) before anything assigned it")
        }
        return variable
    }
}

enum Variables {
    static func id(_ handle: RuntimeTensor, _ node: Node) throws -> Int32 {
        guard let data = handle.data, handle.byteCount >= 4 else { throw node.error("variable handle has no value") }
        return data.loadUnaligned(as: Int32.self)
    }
}
