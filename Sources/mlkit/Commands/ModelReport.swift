import Foundation
import TFLiteRuntime

/// What `mlkit inspect` reports about a model, as text or JSON.
struct ModelReport {
    let model: Model
    let path: String
    var includeTensors = false

    struct TensorEntry: Encodable {
        let index: Int
        let tensor_index: Int
        let name: String
        let shape: [Int]
        let shape_signature: [Int]
        let dtype: String
        let quantization: Quantization?
    }

    struct Quantization: Encodable {
        let scales: [Float]
        let zero_points: [Int64]
        let quantized_dimension: Int
    }

    struct SignatureEntry: Encodable {
        struct Binding: Encodable {
            let name: String
            let tensor_index: Int
        }
        let key: String
        let subgraph: Int
        let inputs: [Binding]
        let outputs: [Binding]
    }

    struct MetadataEntry: Encodable {
        let name: String
        let buffer: Int
        let bytes: Int
    }

    struct JSONReport: Encodable {
        let path: String
        let version: Int
        let description: String
        let subgraphs: Int
        let tensors: Int
        let inputs: [TensorEntry]
        let outputs: [TensorEntry]
        let signatures: [SignatureEntry]
        let operators: [String: Int]
        let unsupported_operators: [String]
        let has_metadata: Bool
        let metadata: [MetadataEntry]
        let all_tensors: [TensorEntry]?
        let tflite_metadata: MetadataReport?
        let tflite_metadata_error: String?
    }

    /// The parsed TensorFlow Lite metadata, or the reason it could not be read.
    private var metadataReport: (report: MetadataReport?, error: String?) {
        do { return (try MetadataReport(model: model), nil) } catch { return (nil, String(describing: error)) }
    }

    /// Shapes after `allocateTensors()`, by tensor index, when the runtime can prepare the model.
    ///
    /// Some outputs (detection post-processing, for one) are declared without a shape and only get
    /// one when the graph is prepared; LiteRT reports those prepared shapes, and so do we.
    private var preparedShapes: [Int: [Int]] {
        guard model.unsupportedOperators.isEmpty, let interpreter = try? Interpreter(model: model),
            (try? interpreter.allocateTensors()) != nil
        else { return [:] }
        var shapes = [Int: [Int]]()
        let graph = model.subgraphs[0]
        for (i, t) in graph.inputs.enumerated() {
            if let tensor = try? interpreter.input(at: i) { shapes[t] = tensor.shape.dimensions }
        }
        for (i, t) in graph.outputs.enumerated() {
            if let tensor = try? interpreter.output(at: i) { shapes[t] = tensor.shape.dimensions }
        }
        return shapes
    }

    private func entries(_ indices: [Int], prepared: [Int: [Int]]) -> [TensorEntry] {
        let graph = model.subgraphs[0]
        return indices.enumerated().map { position, t in
            let tensor = graph.tensors[t]
            return TensorEntry(
                index: position, tensor_index: t, name: tensor.name, shape: prepared[t] ?? tensor.shape,
                shape_signature: tensor.shapeSignature ?? tensor.shape, dtype: tensor.type.numpyName,
                quantization: tensor.quantization.map {
                    Quantization(scales: $0.scales, zero_points: $0.zeroPoints, quantized_dimension: $0.quantizedDimension)
                })
        }
    }

    /// Operator name → number of nodes using it, over all subgraphs.
    var histogram: [String: Int] {
        var counts = [String: Int]()
        for graph in model.subgraphs {
            for op in graph.operators { counts[model.operatorCodes[op.opcodeIndex].displayName, default: 0] += 1 }
        }
        return counts
    }

    func makeReport() -> JSONReport {
        let prepared = preparedShapes
        let meta = metadataReport
        return JSONReport(
            path: path, version: model.version, description: model.modelDescription,
            subgraphs: model.subgraphs.count, tensors: model.subgraphs[0].tensors.count,
            inputs: entries(model.subgraphs[0].inputs, prepared: prepared),
            outputs: entries(model.subgraphs[0].outputs, prepared: prepared),
            signatures: model.signatures.map { sig in
                SignatureEntry(
                    key: sig.key, subgraph: sig.subgraphIndex,
                    inputs: sig.inputs.map { .init(name: $0.name, tensor_index: $0.tensor) },
                    outputs: sig.outputs.map { .init(name: $0.name, tensor_index: $0.tensor) })
            },
            operators: histogram, unsupported_operators: model.unsupportedOperators,
            has_metadata: model.metadataBuffer(named: "TFLITE_METADATA") != nil,
            metadata: model.metadata.map {
                MetadataEntry(name: $0.name, buffer: $0.buffer, bytes: model.bufferData($0.buffer)?.count ?? 0)
            },
            all_tensors: includeTensors ? entries(Array(model.subgraphs[0].tensors.indices), prepared: prepared) : nil,
            tflite_metadata: meta.report, tflite_metadata_error: meta.error)
    }

    func jsonString() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(makeReport()), as: UTF8.self)
    }

    private func describe(_ e: TensorEntry) -> String {
        var line = "  \(e.index)  \(e.name)  \(e.dtype) \(e.shape)"
        if e.shape_signature != e.shape { line += " (signature \(e.shape_signature))" }
        if let q = e.quantization {
            if q.scales.count == 1 {
                line += "  scale \(q.scales[0]) zero point \(q.zero_points.first ?? 0)"
            } else {
                let low = q.scales.min() ?? 0, high = q.scales.max() ?? 0
                let zeros = Set(q.zero_points)
                line += "  per-channel on dimension \(q.quantized_dimension): \(q.scales.count) scales \(low)…\(high)"
                line += zeros.count == 1 ? ", zero point \(zeros.first ?? 0)" : ", \(zeros.count) zero points"
            }
        }
        return line + "  [tensor \(e.tensor_index)]"
    }

    func text() -> String {
        let r = makeReport()
        var lines = ["\(path)"]
        lines.append("  schema version \(r.version), \(r.subgraphs) subgraph(s), \(r.tensors) tensors in subgraph 0")
        if !r.description.isEmpty { lines.append("  description: \(r.description)") }
        lines.append("Inputs:")
        lines += r.inputs.map(describe)
        lines.append("Outputs:")
        lines += r.outputs.map(describe)
        if !r.signatures.isEmpty {
            lines.append("Signatures:")
            for s in r.signatures {
                let ins = s.inputs.map { "\($0.name)→\($0.tensor_index)" }.joined(separator: ", ")
                let outs = s.outputs.map { "\($0.name)→\($0.tensor_index)" }.joined(separator: ", ")
                lines.append("  \(s.key) (subgraph \(s.subgraph)): inputs \(ins); outputs \(outs)")
            }
        }
        let total = r.operators.values.reduce(0, +)
        lines.append("Operators (\(total) nodes):")
        for (name, count) in r.operators.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            lines.append("  \(name) ×\(count)")
        }
        if r.unsupported_operators.isEmpty {
            lines.append("All operators are supported by this runtime.")
        } else {
            lines.append("Not supported by this runtime: \(r.unsupported_operators.joined(separator: ", "))")
        }
        if let all = r.all_tensors {
            lines.append("Tensors:")
            lines += all.map(describe)
        }
        if r.metadata.isEmpty {
            lines.append("Metadata: none")
        } else {
            lines.append("Metadata: " + r.metadata.map { "\($0.name) (\($0.bytes) bytes)" }.joined(separator: ", "))
        }
        if let report = r.tflite_metadata { lines += report.lines() }
        if let error = r.tflite_metadata_error { lines.append("TFLite metadata: unreadable: \(error)") }
        return lines.joined(separator: "\n")
    }
}
