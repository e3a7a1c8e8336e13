/// Typed custom options of MediaPipe's operators (Kernels/MediaPipe/).
///
/// MaxPoolingWithArgmax2D and MaxUnpooling2D carry TFLite's C struct `TfLitePoolParams` as raw
/// little-endian bytes; TransformLandmarks, TransformTensorBilinear and Landmarks2TransformMatrix carry
/// FlexBuffer maps, read the way MediaPipe's parsers read them (an absent key reads as 0).

/// The root map of a node's FlexBuffer custom options.
func customOptionsMap(_ node: Node) throws -> FlexReference {
    do {
        let root = try FlexBuffer(bytes: node.customOptions, what: "node \(node.index) custom options").root()
        guard root.type == .map else { throw node.error("custom options are a FlexBuffer \(root.type), not a map") }
        return root
    } catch let e as FlexBufferError {
        throw node.error("cannot read custom options: \(e)")
    }
}

/// Reads FlexBuffer options, turning format errors into node errors.
private func readFlex<T>(_ node: Node, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as FlexBufferError { throw node.error("cannot read custom options: \(e)") }
}

/// `TfLitePoolParams` of MediaPipe's pooling ops: padding, strides, filter size, fused activation.
struct MediaPipePoolOptions {
    /// TfLitePadding: 0 unknown (MediaPipe's output size is then 0), 1 SAME, 2 VALID.
    enum Padding: Int32 {
        case unknown = 0
        case same = 1
        case valid = 2
    }
    let padding: Padding
    let strideWidth: Int
    let strideHeight: Int
    let filterWidth: Int
    let filterHeight: Int
    let activation: FusedActivation

    init(_ node: Node) throws {
        let bytes = node.customOptions
        // Only the first six ints are read; the struct's trailing computed padding is scratch space.
        guard bytes.count >= 24 else {
            throw node.error("custom options hold \(bytes.count) bytes; TfLitePoolParams needs at least 24")
        }
        func int(_ i: Int) -> Int32 { Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)) }
        guard let padding = Padding(rawValue: int(0)) else { throw node.error("unknown padding \(int(0))") }
        self.padding = padding
        strideWidth = Int(int(1))
        strideHeight = Int(int(2))
        filterWidth = Int(int(3))
        filterHeight = Int(int(4))
        guard strideWidth > 0, strideHeight > 0, filterWidth > 0, filterHeight > 0 else {
            throw node.error(
                "strides \(strideHeight)x\(strideWidth) and filter \(filterHeight)x\(filterWidth) must be positive")
        }
        guard let activation = FusedActivation(rawValue: Int8(truncatingIfNeeded: int(5))), int(5) >= 0, int(5) <= 3
        else { throw node.error("unsupported fused activation \(int(5))") }
        self.activation = activation
    }
}

/// TransformLandmarks version 1: `dimensions` (2 or 3) and `scale` of the translation column.
struct TransformLandmarksOptions {
    let dimensions: Int
    let scale: Float

    init(_ node: Node) throws {
        let map = try customOptionsMap(node)
        (dimensions, scale) = try readFlex(node) {
            // MediaPipe only overwrites the fields whose keys are present; its defaults are 3 and 1.
            let d = try map.value(forKey: "dimensions").map { Int(try $0.asInt32()) } ?? 3
            let s = try map.value(forKey: "scale").map { try $0.asFloat() } ?? 1
            return (d, s)
        }
    }
}

/// TransformTensorBilinear: output height and width; version 2 aligns corners.
struct TransformTensorBilinearOptions {
    let outputHeight: Int
    let outputWidth: Int

    init(_ node: Node, version: Int) throws {
        let map = try customOptionsMap(node)
        (outputHeight, outputWidth) = try readFlex(node) {
            if version == 1 {
                if let mode = try map.value(forKey: "mode"), try mode.asString() != "bilinear" {
                    throw node.error("TransformTensor supports only bilinear interpolation")
                }
                guard let size = try map.value(forKey: "output_size") else { return (0, 0) }
                guard try size.vectorCount() >= 2 else { throw node.error("output_size needs two values") }
                return (Int(try size.element(0).asInt32()), Int(try size.element(1).asInt32()))
            }
            let h = try map.value(forKey: "output_height").map { Int(try $0.asInt32()) } ?? 0
            let w = try map.value(forKey: "output_width").map { Int(try $0.asInt32()) } ?? 0
            return (h, w)
        }
        guard outputHeight > 0, outputWidth > 0 else {
            throw node.error("output size \(outputHeight)x\(outputWidth) must be positive")
        }
    }
}

/// Reads an int vector of landmark index pairs; an odd last index pairs with itself, as in MediaPipe.
private func indexPairs(_ value: FlexReference) throws -> [(Int, Int)] {
    let values = try value.elements().map { Int(try $0.asInt32()) }
    var pairs = stride(from: 0, to: values.count - 1, by: 2).map { (values[$0], values[$0 + 1]) }
    if values.count % 2 == 1, let last = values.last { pairs.append((last, last)) }
    return pairs
}

/// Landmarks2TransformMatrix version 1 (MediaPipe's face mesh).
struct LandmarksToMatrixV1Options {
    let inputHeight: Int, inputWidth: Int
    let outputHeight: Int, outputWidth: Int
    let dimensions: Int
    let landmarksRange: Int
    let bboxSizeMultiplier: Float
    let leftRotationIndex: Int, rightRotationIndex: Int
    let subset: [(Int, Int)]

    init(_ node: Node) throws {
        let map = try customOptionsMap(node)
        func int(_ key: String) throws -> Int { Int(try map.lookup(key).asInt32()) }
        func hw(_ key: String) throws -> (Int, Int) {
            let v = try map.lookup(key)
            guard !v.isNull, try v.vectorCount() >= 2 else { throw node.error("\(key) needs two values") }
            return (Int(try v.element(0).asInt32()), Int(try v.element(1).asInt32()))
        }
        let parsed = try readFlex(node) {
            (
                try hw("input_hw"), try hw("output_hw"), try int("dimensions"), try int("landmarks_range"),
                try map.lookup("bbox_size_multiplier").asFloat(), try int("left_rotation_idx"),
                try int("right_rotation_idx"), try map.value(forKey: "subset").map(indexPairs) ?? []
            )
        }
        (inputHeight, inputWidth) = parsed.0
        (outputHeight, outputWidth) = parsed.1
        dimensions = parsed.2
        landmarksRange = parsed.3
        bboxSizeMultiplier = parsed.4
        leftRotationIndex = parsed.5
        rightRotationIndex = parsed.6
        subset = parsed.7
        // MediaPipe's Eval rejects these; checking once here keeps eval free of option errors.
        guard bboxSizeMultiplier != 0 else { throw node.error("bbox_size_multiplier must not be 0") }
        guard dimensions == 3 else { throw node.error("dimensions must be 3, is \(dimensions)") }
        guard inputHeight > 0, inputWidth > 0, outputHeight > 0, outputWidth > 0 else {
            throw node.error("input_hw and output_hw must be positive")
        }
        guard landmarksRange > 0 else { throw node.error("landmarks_range must be positive") }
        guard leftRotationIndex >= 0, rightRotationIndex >= 0 else { throw node.error("rotation indices are negative") }
        guard !subset.isEmpty else { throw node.error("subset is empty") }
        guard subset.allSatisfy({ $0.0 >= 0 && $0.1 >= 0 }) else { throw node.error("subset has a negative index") }
    }

    /// The largest landmark index the options read.
    var maxIndex: Int { subset.reduce(max(leftRotationIndex, rightRotationIndex)) { max($0, $1.0, $1.1) } }
}

/// Landmarks2TransformMatrix version 2 (MediaPipe's pose and hand pipelines).
struct LandmarksToMatrixV2Options {
    let subset: [(Int, Int)]
    let leftRotationIndex: Int, rightRotationIndex: Int
    let targetRotationRadians: Float
    let outputHeight: Int, outputWidth: Int
    let scaleX: Float, scaleY: Float

    init(_ node: Node) throws {
        let map = try customOptionsMap(node)
        func int(_ key: String) throws -> Int { Int(try map.lookup(key).asInt32()) }
        func float(_ key: String) throws -> Float { try map.lookup(key).asFloat() }
        let parsed = try readFlex(node) {
            (
                try map.value(forKey: "subset_idxs").map(indexPairs) ?? [], try int("left_rotation_idx"),
                try int("right_rotation_idx"), try float("target_rotation_radians"), try int("output_height"),
                try int("output_width"), try float("scale_x"), try float("scale_y")
            )
        }
        (subset, leftRotationIndex, rightRotationIndex, targetRotationRadians) = (
            parsed.0, parsed.1, parsed.2, parsed.3
        )
        (outputHeight, outputWidth, scaleX, scaleY) = (parsed.4, parsed.5, parsed.6, parsed.7)
        guard leftRotationIndex >= 0, rightRotationIndex >= 0 else { throw node.error("rotation indices are negative") }
        guard outputHeight > 0, outputWidth > 0 else { throw node.error("output size must be positive") }
        guard scaleX > 0, scaleY > 0 else { throw node.error("scale_x and scale_y must be positive") }
        // MediaPipe reads the first subset landmark unconditionally, so an empty subset is refused here.
        guard !subset.isEmpty else { throw node.error("subset_idxs is empty") }
        guard subset.allSatisfy({ $0.0 >= 0 && $0.1 >= 0 }) else {
            throw node.error("subset_idxs has a negative index")
        }
    }

    var maxIndex: Int { subset.reduce(max(leftRotationIndex, rightRotationIndex)) { max($0, $1.0, $1.1) } }
}
