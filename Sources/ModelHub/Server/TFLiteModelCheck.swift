import TFLiteRuntime

/// The hub's check that an upload is a TensorFlow Lite model: the runtime's verifying reader.
enum TFLiteModelCheck {
    /// Loads and verifies the model at `path`; throws the reader's typed error.
    static func check(path: String) throws -> Model { try Model(path: path) }
}
