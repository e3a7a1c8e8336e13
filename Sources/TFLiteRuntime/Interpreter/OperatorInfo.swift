/// One operator an interpreter can run, as `mlkit ops` lists it: its name, kind, the versions it
/// accepts, and the input types verified against LiteRT.
public struct OperatorInfo: Sendable, Hashable, Codable {
    /// Builtin or custom.
    public enum Kind: String, Sendable, Hashable, Codable {
        case builtin, custom
    }

    /// The schema's name (`CONV_2D`) or the custom code (`TFLite_Detection_PostProcess`).
    public let name: String
    public let kind: Kind
    /// Every operator version accepted (LiteRT's registered range for a builtin).
    public let versions: [Int]
    /// The input types with which the operator's single-operator cases match LiteRT here, e.g.
    /// `int8`, or `float32/int8` for float activations with int8 weights (dynamic range). Empty
    /// for operators whose types no case has checked yet, and for your own custom operators.
    public let types: [String]
}

extension OperatorResolver {
    /// Every operator this resolver runs: the built-in kernels and the registered custom operators,
    /// builtins first, each group by name.
    public var operators: [OperatorInfo] {
        var builtins = [OperatorInfo]()
        for op in OpRegistry.supportedBuiltins {
            let code = OperatorCode(builtin: op, customCode: nil, version: 1)
            let range = OpRegistry.versions(for: code) ?? 1...1
            builtins.append(
                OperatorInfo(name: op.name, kind: .builtin, versions: Array(range), types: OpRegistry.verifiedTypes[op.name] ?? []))
        }
        var customs = [String: OperatorInfo]()
        for name in OpRegistry.customs.keys {
            customs[name] = OperatorInfo(
                name: name, kind: .custom, versions: Array(OpRegistry.customVersions(name)),
                types: OpRegistry.verifiedTypes[name] ?? [])
        }
        for (name, op) in customOperators {
            customs[name] = OperatorInfo(name: name, kind: .custom, versions: Array(op.versions), types: [])
        }
        return builtins.sorted { $0.name < $1.name } + customs.values.sorted { $0.name < $1.name }
    }
}
