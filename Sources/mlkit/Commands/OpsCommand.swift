import ArgumentParser
import Foundation
import TFLiteRuntime

/// `mlkit ops [--json]`: every operator the runtime runs, with versions and verified types.
struct OpsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ops",
        abstract: "List every builtin and custom operator the runtime runs, with its versions and types.",
        discussion: """
            Versions are those LiteRT 2.3 registers for the operator. Types are the input types whose \
            single-operator cases match LiteRT's output (tools/op_cases, SingleOperatorTests); \
            "float32/int8" means float activations with int8 weights.
            """
    )

    @Flag(help: "Print a JSON array of {\"name\", \"kind\", \"versions\", \"types\"}.")
    var json = false

    func run() throws {
        try reportingErrors {
            let operators = OperatorResolver().operators
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(operators), as: UTF8.self))
                return
            }
            let width = max(4, operators.map(\.name.count).max() ?? 0)
            for op in operators {
                let versions = op.versions.count > 1 ? "v\(op.versions.first!)-\(op.versions.last!)" : "v\(op.versions.first ?? 1)"
                let name = op.name.padding(toLength: width, withPad: " ", startingAt: 0)
                let kind = op.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                let ver = versions.padding(toLength: 6, withPad: " ", startingAt: 0)
                print("\(name)  \(kind) \(ver) \(op.types.isEmpty ? "-" : op.types.joined(separator: " "))")
            }
            let builtins = operators.filter { $0.kind == .builtin }.count
            print("\(builtins) builtin and \(operators.count - builtins) custom operators")
        }
    }
}
