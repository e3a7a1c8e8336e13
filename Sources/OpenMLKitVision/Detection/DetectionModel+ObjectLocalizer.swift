extension DetectionModel: ObjectLocalizer {
    /// The model's detections as class-agnostic regions, best first (the score is the detection's).
    public func regions(in image: VisionImage, maxCount: Int) throws -> [LocalizedRegion] {
        try results(in: image).prefix(max(0, maxCount)).map {
            LocalizedRegion(frame: $0.frame, score: $0.labels.first?.confidence ?? 0)
        }
    }
}
