/// A fold of input elements into an accumulator, as a value the reduction loops are specialized on.
protocol Reducer {
    associatedtype Element
    associatedtype Accumulator
    /// The value an output starts from.
    var identity: Accumulator { get }
    /// The value of an output when the whole input is empty (LiteRT fills it with its neutral
    /// element, which is not always `identity`).
    var emptyValue: Accumulator { get }
    func callAsFunction(_ accumulator: Accumulator, _ x: Element) -> Accumulator
    /// Combines two partial results (for splitting one fold over threads).
    func merge(_ a: Accumulator, _ b: Accumulator) -> Accumulator
    /// Whether merging partial results gives exactly the in-order fold (integer sums, maxima): then
    /// a reduction over leading rows may fold row ranges separately and merge them.
    static var mergesExactly: Bool { get }
}

extension Reducer {
    /// Float sums round differently when regrouped: by default a fold stays in input order.
    static var mergesExactly: Bool { false }
}

/// Sum in the element type; integers wrap, as in LiteRT's SUM.
struct SumReducer<T: ElementwiseScalar>: Reducer {
    var identity: T { T.additiveIdentity }
    var emptyValue: T { 0 }
    @inline(__always) func callAsFunction(_ accumulator: T, _ x: T) -> T { T.add(accumulator, x) }
    @inline(__always) func merge(_ a: T, _ b: T) -> T { T.add(a, b) }
}

/// Sum of integers in 64 bits (LiteRT's accumulator for integer MEAN).
struct WideSumReducer<T: FixedWidthInteger & SignedInteger>: Reducer {
    var identity: Int64 { 0 }
    var emptyValue: Int64 { 0 }
    @inline(__always) func callAsFunction(_ accumulator: Int64, _ x: T) -> Int64 { accumulator &+ Int64(x) }
    @inline(__always) func merge(_ a: Int64, _ b: Int64) -> Int64 { a &+ b }
    /// Wrapping integer addition regroups exactly.
    static var mergesExactly: Bool { true }
}

/// Maximum as LiteRT computes it: `acc > x ? acc : x` from -infinity (so all -inf gives -inf), but
/// the lowest finite value for an empty input.
struct MaxReducer<T: ElementwiseScalar>: Reducer {
    var identity: T { T.maximumIdentity }
    var emptyValue: T { T.activationLowest }
    @inline(__always) func callAsFunction(_ accumulator: T, _ x: T) -> T { accumulator > x ? accumulator : x }
    @inline(__always) func merge(_ a: T, _ b: T) -> T { a > b ? a : b }
}
