/// How the preprocessor samples the image when it scales a region to a model's input size.
///
/// ML Kit has no such option: on iOS the scaling is done by Core Image or vImage, which filter
/// before shrinking. ``area`` does the same and is the default; ``bilinear`` reproduces the
/// TensorFlow Lite Task Library (LiteRT) exactly and is what the parity tools compare against.
public enum ResizeMethod: String, CaseIterable, Sendable {
    /// Each input pixel is the mean of the image area it covers (a box filter over the exact
    /// footprint, with fractional weights for pixels cut by its edges), so a large photo shrunk
    /// many times does not alias. Along an axis that is not shrunk (scale factor ≤ 1) it samples
    /// bilinearly, so enlarging gives the same bytes as ``bilinear``. Shrinking by an integer factor
    /// k gives the mean of each k×k block, rounded half up.
    case area
    /// Four-tap bilinear sampling at each input pixel's centre with no prefilter, as the TensorFlow
    /// Lite Task Library does: exact agreement with LiteRT's preprocessing, but it aliases when the
    /// image is shrunk by more than about two.
    case bilinear
}
