import Foundation
import Testing

@testable import TFLiteRuntime

@Suite("Model reader")
struct ModelTests {
    @Test("every shared model loads and verifies",
          .enabled(if: TestPaths.hasSharedModels, "../shared/models is not beside the checkout"))
    func sharedModelsLoad() throws {
        let names = TestPaths.allSharedModels
        #expect(names.count >= 20)
        for name in names {
            let model = try Model(path: TestPaths.sharedModel(name))
            #expect(!model.subgraphs.isEmpty, "\(name)")
            #expect(!model.subgraphs[0].inputs.isEmpty, "\(name)")
            #expect(!model.subgraphs[0].outputs.isEmpty, "\(name)")
        }
    }

    @Test("reads shapes, types and quantization of a known model",
          .enabled(if: TestPaths.hasSharedModels, "../shared/models is not beside the checkout"))
    func knownModel() throws {
        let model = try Model(path: TestPaths.sharedModel("traffic_model.tflite"))
        let graph = model.subgraphs[0]
        #expect(graph.inputs.count == 3)
        #expect(graph.outputs.count == 6)
        let image = graph.tensors[graph.inputs[0]]
        #expect(image.name == "normalized_input_image_tensor")
        #expect(image.type == .uint8)
        #expect(image.shape == [1, 256, 256, 3])
        #expect(image.quantization?.scales == [0.0078125])
        #expect(image.quantization?.zeroPoints == [128])
        let ops = Set(graph.operators.map { model.operatorCodes[$0.opcodeIndex].displayName })
        #expect(ops.contains("TFLite_Detection_PostProcess"))
        #expect(ops.contains("CONV_2D"))
    }

    @Test("per-channel quantization and metadata are read",
          .enabled(if: TestPaths.hasSharedModels, "../shared/models is not beside the checkout"))
    func perChannelAndMetadata() throws {
        let model = try Model(path: TestPaths.sharedModel("tf2_mobilenet_v2_1.0_224_ptq.tflite"))
        let perChannel = model.subgraphs[0].tensors.filter { ($0.quantization?.scales.count ?? 0) > 1 }
        #expect(!perChannel.isEmpty)
        for t in perChannel {
            let q = try #require(t.quantization)
            #expect(t.shape[q.quantizedDimension] == q.scales.count)
        }
        let withMetadata = try Model(path: TestPaths.sharedModel("mobilenet_v1_0.25_224_quant_metadata.tflite"))
        let metadata = try #require(withMetadata.metadataBuffer(named: "TFLITE_METADATA"))
        // The metadata is itself a FlatBuffer with file identifier "M001".
        #expect(String(decoding: metadata[metadata.startIndex + 4..<metadata.startIndex + 8], as: UTF8.self) == "M001")
    }

    @Test("rejects files that are not TensorFlow Lite models")
    func rejectsNonModels() {
        #expect(throws: ModelError.tooSmall(size: 3)) { try Model(data: Data([1, 2, 3])) }
        #expect(throws: ModelError.self) { try Model(data: Data("hello, this is not a model".utf8)) }
        #expect(throws: ModelError.self) { try Model(path: "/nonexistent/model.tflite") }
    }
}
