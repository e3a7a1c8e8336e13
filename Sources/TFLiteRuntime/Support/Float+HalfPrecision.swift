extension Float {
    /// Converts IEEE 754 half-precision bits to a `Float` (portable: no hardware `Float16` needed).
    public init(float16Bits h: UInt16) {
        self = HalfPrecision.float(fromHalf: h)
    }
}
