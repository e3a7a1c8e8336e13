import Foundation

/// A label of a detected object (ML Kit's `ObjectLabel`): text, class index, confidence.
public typealias ObjectLabel = ImageLabel

/// ML Kit's name for a detected object.
public typealias Object = DetectedObject

/// An object a detector found (ML Kit's `Object`).
public struct DetectedObject: Equatable, Sendable {
    /// Where the object is, in pixels of the upright image.
    public let frame: CGRect
    /// An identifier that follows the object across frames, as an integer; nil for single images.
    public let trackingIDValue: Int?
    /// The identifier that follows the object across frames (ML Kit's `NSNumber?`); nil for single
    /// images. It was an `Int?` before OpenMLKit matched ML Kit's type; ``trackingIDValue`` keeps it.
    public var trackingID: NSNumber? { trackingIDValue.map { NSNumber(value: $0) } }
    /// The object's labels, best first.
    public let labels: [ObjectLabel]

    /// An object with the given frame, tracking identifier and labels.
    public init(frame: CGRect, trackingID: Int? = nil, labels: [ObjectLabel]) {
        self.frame = frame
        self.trackingIDValue = trackingID
        self.labels = labels
    }
}

extension DetectedObject: Encodable {
    private enum Keys: String, CodingKey { case frame, trackingID, labels }
    private enum FrameKeys: String, CodingKey { case x, y, width, height }

    /// Encodes as ML Kit's object: `frame` {x, y, width, height}, `trackingID` (null when absent), `labels`.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var box = container.nestedContainer(keyedBy: FrameKeys.self, forKey: .frame)
        try box.encode(Double(frame.minX), forKey: .x)
        try box.encode(Double(frame.minY), forKey: .y)
        try box.encode(Double(frame.width), forKey: .width)
        try box.encode(Double(frame.height), forKey: .height)
        if let trackingID = trackingIDValue {
            try container.encode(trackingID, forKey: .trackingID)
        } else {
            try container.encodeNil(forKey: .trackingID)
        }
        try container.encode(labels, forKey: .labels)
    }
}
