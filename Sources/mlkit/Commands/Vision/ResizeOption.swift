import ArgumentParser
import OpenMLKitVision

/// `--resize`: how the image is sampled when it is scaled to the model's input.
enum ResizeOption: String, ExpressibleByArgument, CaseIterable {
    case area
    case bilinear

    /// The help text shared by the commands that take the option.
    static let help = ArgumentHelp(
        "Sampling when the image is scaled to the model's input: area (default; averages the pixels under each input pixel, no aliasing when shrinking a large photo) or bilinear (no prefilter; exactly LiteRT's Task Library).",
        valueName: "method")

    var method: ResizeMethod {
        switch self {
        case .area: return .area
        case .bilinear: return .bilinear
        }
    }
}
