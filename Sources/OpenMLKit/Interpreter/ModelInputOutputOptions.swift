import Foundation

/// The element types and dimensions the app will give and expect (ML Kit's `ModelInputOutputOptions`).
///
/// The interpreter checks them against the model before running, so a mismatch is a clear error
/// instead of garbage output.
public final class ModelInputOutputOptions: @unchecked Sendable {
    /// One declared format.
    public struct Format: Equatable, Sendable {
        public let type: ModelElementType
        public let dimensions: [Int]

        /// Elements in a tensor of this format.
        public var elementCount: Int { dimensions.reduce(1, *) }
    }

    /// The declared formats by index.
    private let formats = LockedBox((inputs: [Int: Format](), outputs: [Int: Format]()))

    public init() {}

    /// Declares input `index` as `type` with `dimensions`.
    public func setInputFormat(index: UInt, type: ModelElementType, dimensions: [NSNumber]) throws {
        try setInputFormat(index: index, type: type, dimensions: dimensions.map(\.intValue))
    }

    /// Declares input `index` as `type` with `dimensions`.
    public func setInputFormat(index: UInt, type: ModelElementType, dimensions: [Int]) throws {
        let format = try ModelInputOutputOptions.validated(type, dimensions, "input \(index)")
        formats.withLockedValue { $0.inputs[Int(index)] = format }
    }

    /// Declares output `index` as `type` with `dimensions`.
    public func setOutputFormat(index: UInt, type: ModelElementType, dimensions: [NSNumber]) throws {
        try setOutputFormat(index: index, type: type, dimensions: dimensions.map(\.intValue))
    }

    /// Declares output `index` as `type` with `dimensions`.
    public func setOutputFormat(index: UInt, type: ModelElementType, dimensions: [Int]) throws {
        let format = try ModelInputOutputOptions.validated(type, dimensions, "output \(index)")
        formats.withLockedValue { $0.outputs[Int(index)] = format }
    }

    /// The declared input formats, by index.
    public var inputFormats: [Int: Format] { formats.current.inputs }
    /// The declared output formats, by index.
    public var outputFormats: [Int: Format] { formats.current.outputs }

    private static func validated(_ type: ModelElementType, _ dimensions: [Int], _ what: String) throws -> Format {
        guard !dimensions.isEmpty else { throw ModelInterpreterError.invalidOptions("\(what) has no dimensions") }
        guard dimensions.allSatisfy({ $0 > 0 }) else {
            throw ModelInterpreterError.invalidOptions("\(what) dimensions \(dimensions) must all be positive")
        }
        var count = 1
        for d in dimensions {
            let (p, o) = count.multipliedReportingOverflow(by: d)
            guard !o, p <= 1 << 31 else { throw ModelInterpreterError.invalidOptions("\(what) dimensions \(dimensions) are too large") }
            count = p
        }
        return Format(type: type, dimensions: dimensions)
    }
}
