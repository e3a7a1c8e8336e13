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
        try variables.variable(try node.input(0), node).assign(from: try node.input(1), node)
    }
}

/// READ_VARIABLE: outputs the current value of the variable whose handle is input 0; reading a
/// variable nothing has assigned is an error. The output's shape is the value's, known at invoke.
final class ReadVariableKernel: OpKernel {
    private var variables = VariableLookup()

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let handle = try node.input(0)
        try node.expect(handle, type: .resource, .int32, role: "variable handle")
        guard node.isRunning else { return node.markOutputsDynamic() }
        let value = try variables.assigned(handle, node)
        let y = try node.output(0)
        // Prepared on every invoke (the shape is the value's): unchanged is the common case.
        if y.type != value.type || y.shape != value.shape {
            try node.setOutput(0, type: value.type, shape: value.shape)
        }
    }

    func eval(_ node: Node) throws {
        try variables.assigned(try node.input(0), node).write(to: try node.output(0), node, role: "output")
    }
}

/// The variable a kernel's handle names, remembered with its id: the id a handle holds is the
/// same on every invoke, and looking the variable up through the interpreter each time (a weak
/// reference and a dictionary) cost more than copying its bytes.
struct VariableLookup {
    private var last: (id: Int32, variable: ResourceVariable)?

    mutating func variable(_ handle: RuntimeTensor, _ node: Node) throws -> ResourceVariable {
        let id = try Variables.id(handle, node)
        if let last, last.id == id { return last.variable }
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let variable = context.resources.variable(id)
        last = (id, variable)
        return variable
    }

    /// The variable's value, which must have been assigned.
    mutating func assigned(_ handle: RuntimeTensor, _ node: Node) throws -> TensorValue {
        guard let value = try variable(handle, node).value else {
            throw node.error("reads variable \(try Variables.id(handle, node)) before anything assigned it")
        }
        return value
    }
}

enum Variables {
    static func id(_ handle: RuntimeTensor, _ node: Node) throws -> Int32 {
        guard let data = handle.data, handle.byteCount >= 4 else { throw node.error("variable handle has no value") }
        return data.loadUnaligned(as: Int32.self)
    }
}
