import ArgumentParser
import OpenMLKitVision

/// `--scale`: how the image is fitted to the model's input.
enum ScaleOption: String, ExpressibleByArgument, CaseIterable {
    case stretch
    case centerCrop = "center-crop"
    case letterbox

    var mode: ScaleMode {
        switch self {
        case .stretch: return .stretch
        case .centerCrop: return .centerCrop
        case .letterbox: return .letterbox
        }
    }
}
