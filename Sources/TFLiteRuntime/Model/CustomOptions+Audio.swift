/// Typed custom options of TensorFlow Lite's audio operators (Kernels/Audio/), FlexBuffer maps read as
/// LiteRT's `Init` reads them: an absent key is 0 / false, and Mfcc's frequency limits go through
/// `AsInt64`, so fractional limits are truncated to whole hertz.

/// AudioSpectrogram: `window_size`, `stride`, `magnitude_squared`.
struct AudioSpectrogramOptions {
    let windowSize: Int
    let stride: Int
    let magnitudeSquared: Bool

    init(_ node: Node) throws {
        let map = try customOptionsMap(node)
        do {
            windowSize = Int(try map.lookup("window_size").asInt32())
            stride = Int(try map.lookup("stride").asInt32())
            magnitudeSquared = try map.lookup("magnitude_squared").asBool()
        } catch let e as FlexBufferError {
            throw node.error("cannot read custom options: \(e)")
        }
        // Spectrogram::Initialize refuses these, which fails LiteRT's Prepare.
        guard windowSize >= 2 else { throw node.error("window_size \(windowSize) is shorter than 2") }
        guard stride >= 1 else { throw node.error("stride \(stride) must be positive") }
        guard windowSize <= 1 << 24 else { throw node.error("window_size \(windowSize) is too large") }
    }
}

/// Mfcc: frequency limits, filterbank channel count, DCT coefficient count.
struct MfccOptions {
    let upperFrequencyLimit: Double
    let lowerFrequencyLimit: Double
    let filterbankChannelCount: Int
    let dctCoefficientCount: Int

    init(_ node: Node) throws {
        let map = try customOptionsMap(node)
        do {
            // LiteRT stores AsInt64() into float fields: the limits are whole numbers.
            upperFrequencyLimit = Double(Float(try map.lookup("upper_frequency_limit").asInt64()))
            lowerFrequencyLimit = Double(Float(try map.lookup("lower_frequency_limit").asInt64()))
            filterbankChannelCount = Int(try map.lookup("filterbank_channel_count").asInt32())
            dctCoefficientCount = Int(try map.lookup("dct_coefficient_count").asInt32())
        } catch let e as FlexBufferError {
            throw node.error("cannot read custom options: \(e)")
        }
        guard filterbankChannelCount >= 1, filterbankChannelCount <= 1 << 16 else {
            throw node.error("filterbank_channel_count \(filterbankChannelCount) is out of range")
        }
        guard dctCoefficientCount >= 1, dctCoefficientCount <= filterbankChannelCount else {
            throw node.error("dct_coefficient_count \(dctCoefficientCount) must be 1...filterbank_channel_count")
        }
        guard lowerFrequencyLimit >= 0, upperFrequencyLimit > lowerFrequencyLimit else {
            throw node.error("frequency limits \(lowerFrequencyLimit)...\(upperFrequencyLimit) are invalid")
        }
    }
}
