/// One label an image classifier assigned (ML Kit's `ImageLabel`).
public struct ImageLabel: Equatable, Sendable, Codable {
    /// The label's text from the model's metadata or labels file; empty when the model has none.
    public let text: String
    /// The class index in the model's output.
    public let index: Int
    /// The dequantized score, usually 0...1.
    public let confidence: Float

    /// A label with the given text, class index and confidence.
    public init(text: String, index: Int, confidence: Float) {
        self.text = text
        self.index = index
        self.confidence = confidence
    }
}
