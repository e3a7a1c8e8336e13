import Foundation
import Testing

@testable import TFLiteRuntime

/// The metadata reader against the published models that carry TFLite metadata.
@Suite("TFLite metadata", .enabled(if: TestPaths.hasSharedModels, "../shared/models is not beside the checkout"))
struct ModelMetadataTests {
    func load(_ name: String) throws -> Model { try Model(path: TestPaths.sharedModel(name)) }

    func lines(_ data: Data) -> Int {
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).count
    }

    /// The number of classes of output 0 (its last dimension).
    func classes(_ model: Model) -> Int { model.subgraphs[0].tensors[model.subgraphs[0].outputs[0]].shape.last ?? 0 }

    @Test("Classifier metadata: image input, normalisation, axis labels matching the class count")
    func classifiers() throws {
        for name in [
            "mobilenet_v1_0.25_224_quant_metadata.tflite", "mobilenet_v1_0.25_224_float_metadata.tflite",
            "automl_ic_flowers_metadata.tflite", "flowers_quant.tflite", "mlkit_object_labeler.tflite",
            "mlkit_bird_classifier.tflite",
        ] {
            let model = try load(name)
            let metadata = try #require(try model.readMetadata(), "\(name) has metadata")
            let subgraph = try #require(metadata.subgraphs.first, "\(name)")
            #expect(subgraph.inputTensors.count == model.subgraphs[0].inputs.count, "\(name)")
            #expect(subgraph.outputTensors.count == model.subgraphs[0].outputs.count, "\(name)")
            // The bird classifier describes its input only by name; the others as RGB images.
            if name == "mlkit_bird_classifier.tflite" {
                #expect(subgraph.inputTensors[0].content == nil)
            } else if case .image(let space, _, _)? = subgraph.inputTensors[0].content {
                #expect(space == .rgb, "\(name)")
            } else {
                Issue.record("\(name): input 0 is not described as an image")
            }
            let labels = try #require(subgraph.outputTensors[0].labelFile(.tensorAxisLabels), "\(name) has axis labels")
            let data = try model.associatedFile(named: labels.name)
            #expect(lines(data) == classes(model), "\(name): \(labels.name) has one line per class")
        }
    }

    @Test("Thresholds, normalisation and locales are read as published")
    func values() throws {
        let labeler = try #require(try load("mlkit_object_labeler.tflite").readMetadata()).subgraphs[0]
        #expect(labeler.outputTensors[0].scoreThreshold == 0.35)
        let files = labeler.outputTensors[0].associatedFiles.filter { $0.type == .tensorAxisLabels }
        #expect(files.count == 2)
        #expect(files.contains { $0.locale == "en" })
        let bird = try #require(try load("mlkit_bird_classifier.tflite").readMetadata()).subgraphs[0]
        #expect(bird.outputTensors[0].scoreThreshold == 0.3)
        #expect(bird.inputTensors[0].normalization == nil)
        let float = try #require(try load("mobilenet_v1_0.25_224_float_metadata.tflite").readMetadata())
        #expect(float.subgraphs[0].inputTensors[0].normalization?.mean == [127.5])
        #expect(float.subgraphs[0].inputTensors[0].normalization?.std == [127.5])
        #expect(float.name?.isEmpty == false)
    }

    @Test("Detector metadata: bounding boxes and value labels")
    func detector() throws {
        let model = try load("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_metadata.tflite")
        let outputs = try #require(try model.readMetadata()).subgraphs[0].outputTensors
        let boxes = outputs.compactMap { t -> [Int]? in
            if case .boundingBox(let index, let type, let coordinates)? = t.content, type == .boundaries,
                coordinates == .ratio
            {
                return index
            }
            return nil
        }
        #expect(boxes.count == 1)
        #expect(Set(boxes.first ?? []) == [0, 1, 2, 3])
        let valueLabels = outputs.compactMap { $0.labelFile(.tensorValueLabels) }
        #expect(valueLabels.count == 1)
        #expect(try model.associatedFiles().map(\.name) == valueLabels.map(\.name))
    }

    @Test("Models without metadata, without files, or without subgraph metadata")
    func partial() throws {
        #expect(try load("cup_model.tflite").readMetadata() == nil)
        #expect(try load("cup_model.tflite").associatedFiles().isEmpty)
        let dilated = try load("tflite_support_dilated_conv_metadata.tflite")
        #expect(try dilated.readMetadata() != nil)
        #expect(try dilated.associatedFiles().isEmpty)
        let bare = try load("mobilenet_v1_0.25_224_quant_no_subgraph_metadata.tflite")
        #expect(try bare.readMetadata()?.subgraphs.first?.outputTensors.isEmpty ?? true)
        #expect(lines(try bare.associatedFile(named: "labels.txt")) == classes(bare))
        #expect(throws: MetadataError.missingFile(name: "nope.txt")) { try bare.associatedFile(named: "nope.txt") }
    }

    @Test("Every shared model's metadata and archive read without error")
    func allShared() throws {
        for name in TestPaths.allSharedModels {
            let model = try load(name)
            _ = try model.readMetadata()
            _ = try model.associatedFiles()
        }
    }
}
