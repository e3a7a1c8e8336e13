/// VAR_HANDLE: outputs the id (a resource tensor holding one int32) of the variable named by its
/// container and shared name; the same name gives the same variable in every subgraph.
final class VarHandleKernel: OpKernel {
    let parameters: VarHandleParameters

    init(_ node: Node) throws {
        try node.expect(inputs: 0, outputs: 1)
        parameters = try VarHandleParameters(node)
    }

    func prepare(_ node: Node) throws {
        try node.setOutput(0, type: .resource, shape: [])
    }

    func eval(_ node: Node) throws {
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let id = context.resources.id(container: parameters.container, sharedName: parameters.sharedName)
        let y = try node.output(0)
        guard let data = y.data, y.byteCount >= 4 else { throw node.error("output has no memory") }
        data.storeBytes(of: id, as: Int32.self)
    }
}

/// ASSIGN_VARIABLE: stores input 1 (any type and shape) in the variable whose handle is input 0.
final class AssignVariableKernel: OpKernel {
    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 0)
    }

    func prepare(_ node: Node) throws {
        try node.expect(try node.input(0), type: .resource, .int32, role: "variable handle")
    }

    func eval(_ node: Node) throws {
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let id = try Variables.id(try node.input(0), node)
        let value = try node.input(1)
        guard value.data != nil || value.requiredBytes == 0 else { throw node.error("value has no data") }
        context.resources.variables[id] = TensorValue(value)
    }
}

/// READ_VARIABLE: outputs the current value of the variable whose handle is input 0; reading a
/// variable nothing has assigned is an error. The output's shape is the value's, known at invoke.
final class ReadVariableKernel: OpKernel {
    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let handle = try node.input(0)
        try node.expect(handle, type: .resource, .int32, role: "variable handle")
        guard node.isRunning else { return node.markOutputsDynamic() }
        let value = try Variables.value(handle, node)
        try node.setOutput(0, type: value.type, shape: value.shape)
    }

    func eval(_ node: Node) throws {
        try Variables.value(try node.input(0), node).write(to: try node.output(0), node, role: "output")
    }
}

enum Variables {
    static func id(_ handle: RuntimeTensor, _ node: Node) throws -> Int32 {
        guard let data = handle.data, handle.byteCount >= 4 else { throw node.error("variable handle has no value") }
        return data.loadUnaligned(as: Int32.self)
    }

    static func value(_ handle: RuntimeTensor, _ node: Node) throws -> TensorValue {
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let id = try id(handle, node)
        guard let value = context.resources.variables[id] else {
            throw node.error("reads variable \(id) before anything assigned it")
        }
        return value
    }
}
