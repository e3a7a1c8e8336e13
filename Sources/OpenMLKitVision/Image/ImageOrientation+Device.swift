/// The physical orientation of the device when a camera frame was captured (as `UIDeviceOrientation`).
public enum DeviceOrientation: Sendable, CaseIterable {
    /// Upright, home button or bottom edge down.
    case portrait
    /// Upside down.
    case portraitUpsideDown
    /// Rotated so that the top of the device points left.
    case landscapeLeft
    /// Rotated so that the top of the device points right.
    case landscapeRight
    /// Lying flat, screen up.
    case faceUp
    /// Lying flat, screen down.
    case faceDown
    /// Not known.
    case unknown
}

/// Which camera captured a frame (as `AVCaptureDevice.Position`).
public enum CameraPosition: Sendable, CaseIterable {
    /// The rear camera.
    case back
    /// The front (selfie) camera, whose frames are mirrored.
    case front
    /// Not known; treated like the back camera.
    case unspecified
}

extension ImageOrientation {
    /// The orientation of a camera frame captured with the device held as `deviceOrientation`.
    ///
    /// This is the helper ML Kit's guides ask apps to write (`imageOrientation(deviceOrientation:
    /// cameraPosition:)`): camera sensors deliver landscape frames, so a portrait device needs
    /// `.right` on the back camera; front camera frames are mirrored. Flat or unknown devices give `.up`.
    public init(deviceOrientation: DeviceOrientation, cameraPosition: CameraPosition) {
        let front = cameraPosition == .front
        switch deviceOrientation {
        case .portrait: self = front ? .leftMirrored : .right
        case .landscapeLeft: self = front ? .downMirrored : .up
        case .portraitUpsideDown: self = front ? .rightMirrored : .left
        case .landscapeRight: self = front ? .upMirrored : .down
        case .faceUp, .faceDown, .unknown: self = .up
        }
    }
}
