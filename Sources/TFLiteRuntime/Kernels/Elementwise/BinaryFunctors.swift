/// One binary operation on one element type, as a value the inner loops are specialized on.
///
/// The loops in `BinaryElementwiseKernel` are generic over the functor, so each (operator, type)
/// pair compiles to its own loop with the operation inlined: no closures or dynamic dispatch per
/// element.
protocol BinaryFunctor {
    associatedtype Element
    func callAsFunction(_ a: Element, _ b: Element) -> Element
}

/// `a + b`, then the fused activation's clamp.
struct AddFunctor<T: ElementwiseScalar>: BinaryFunctor {
    let lower: T, upper: T
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { T.clamp(T.add(a, b), lower, upper) }
}

/// `a - b`, then the fused activation's clamp.
struct SubtractFunctor<T: ElementwiseScalar>: BinaryFunctor {
    let lower: T, upper: T
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { T.clamp(T.subtract(a, b), lower, upper) }
}

/// `a * b`, then the fused activation's clamp.
struct MultiplyFunctor<T: ElementwiseScalar>: BinaryFunctor {
    let lower: T, upper: T
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { T.clamp(T.multiply(a, b), lower, upper) }
}

/// `a / b`, then the fused activation's clamp.
struct DivideFunctor<T: ElementwiseScalar>: BinaryFunctor {
    let lower: T, upper: T
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { T.clamp(T.divide(a, b), lower, upper) }
}

/// `(a - b)²`.
struct SquaredDifferenceFunctor<T: ElementwiseScalar>: BinaryFunctor {
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T {
        let d = T.subtract(a, b)
        return T.multiply(d, d)
    }
}

/// LiteRT's `a > b ? a : b`: a NaN in `b` wins, a NaN in `a` loses.
struct MaximumFunctor<T: ElementwiseScalar>: BinaryFunctor {
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { a > b ? a : b }
}

/// LiteRT's `a < b ? a : b`.
struct MinimumFunctor<T: ElementwiseScalar>: BinaryFunctor {
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { a < b ? a : b }
}

/// `floor(a / b)`.
struct FloorDivideFunctor<T: ElementwiseScalar>: BinaryFunctor {
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { T.floorDivide(a, b) }
}

/// The remainder with the sign of the divisor.
struct FloorModuloFunctor<T: ElementwiseScalar>: BinaryFunctor {
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { T.floorModulo(a, b) }
}
