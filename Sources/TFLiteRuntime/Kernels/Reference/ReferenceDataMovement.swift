/// Plain, element-at-a-time versions of the data-movement kernels: the oracle their fast paths are
/// tested against. Tensors are byte arrays of `elementSize`-byte elements in row-major order; every
/// output element is found by mapping its coordinates back to the input, as LiteRT's reference
/// kernels do.
enum ReferenceDataMovement {
    /// The coordinates of flat index `index` in `shape`.
    static func coordinates(_ index: Int, _ shape: [Int]) -> [Int] {
        var rest = index
        var c = [Int](repeating: 0, count: shape.count)
        for d in stride(from: shape.count - 1, through: 0, by: -1) {
            c[d] = rest % shape[d]
            rest /= shape[d]
        }
        return c
    }

    /// The flat index of coordinates `c` in `shape`.
    static func flat(_ c: [Int], _ shape: [Int]) -> Int {
        var index = 0
        for d in shape.indices { index = index * shape[d] + c[d] }
        return index
    }

    static func count(_ shape: [Int]) -> Int { shape.reduce(1, *) }

    /// Copies element `from` of `input` to element `to` of `output`.
    static func move(_ input: [UInt8], _ from: Int, _ output: inout [UInt8], _ to: Int, _ es: Int) {
        for b in 0..<es { output[to * es + b] = input[from * es + b] }
    }

    static func transpose(_ input: [UInt8], shape: [Int], perm: [Int], elementSize es: Int) -> [UInt8] {
        let outShape = perm.map { shape[$0] }
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            var inC = [Int](repeating: 0, count: shape.count)
            for i in perm.indices { inC[perm[i]] = c[i] }
            move(input, flat(inC, shape), &output, o, es)
        }
        return output
    }

    static func concatenate(_ inputs: [(bytes: [UInt8], shape: [Int])], axis: Int, elementSize es: Int) -> [UInt8] {
        var outShape = inputs[0].shape
        outShape[axis] = inputs.map { $0.shape[axis] }.reduce(0, +)
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            var c = coordinates(o, outShape)
            var part = 0
            while c[axis] >= inputs[part].shape[axis] {
                c[axis] -= inputs[part].shape[axis]
                part += 1
            }
            move(inputs[part].bytes, flat(c, inputs[part].shape), &output, o, es)
        }
        return output
    }

    /// Splits along `axis` into parts of `sizes`.
    static func split(_ input: [UInt8], shape: [Int], axis: Int, sizes: [Int], elementSize es: Int) -> [[UInt8]] {
        var start = 0
        return sizes.map { size in
            var begin = [Int](repeating: 0, count: shape.count)
            begin[axis] = start
            var extent = shape
            extent[axis] = size
            start += size
            return slice(input, shape: shape, begin: begin, size: extent, elementSize: es)
        }
    }

    static func slice(_ input: [UInt8], shape: [Int], begin: [Int], size: [Int], elementSize es: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count(size) * es)
        for o in 0..<count(size) {
            let c = coordinates(o, size)
            move(input, flat(zip(c, begin).map { $0 + $1 }, shape), &output, o, es)
        }
        return output
    }

    /// A strided slice over already-resolved effective axes: `starts`, `strides` and element
    /// `counts` per axis of `shape` (the effective input shape).
    static func stridedSlice(
        _ input: [UInt8], shape: [Int], starts: [Int], strides: [Int], counts: [Int], elementSize es: Int
    ) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count(counts) * es)
        for o in 0..<count(counts) {
            let c = coordinates(o, counts)
            move(input, flat(c.indices.map { starts[$0] + c[$0] * strides[$0] }, shape), &output, o, es)
        }
        return output
    }

    /// GATHER with LiteRT's axis and batch_dims; indices must be in range.
    static func gather(
        _ input: [UInt8], shape: [Int], indices: [Int], indicesShape: [Int], axis: Int, batchDims: Int, elementSize es: Int
    ) -> [UInt8] {
        let outShape = Array(shape[..<axis]) + Array(indicesShape[batchDims...]) + Array(shape[(axis + 1)...])
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        let indexRank = indicesShape.count - batchDims
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            // Output coordinates: input[..<axis], then indices[batchDims...], then input[axis+1...].
            let indexCoordinates = Array(c[..<batchDims]) + Array(c[axis..<(axis + indexRank)])
            let picked = indices[flat(indexCoordinates, indicesShape)]
            let inC = Array(c[..<axis]) + [picked] + Array(c[(axis + indexRank)...])
            move(input, flat(inC, shape), &output, o, es)
        }
        return output
    }

    static func gatherND(_ params: [UInt8], shape: [Int], indices: [Int], indicesShape: [Int], elementSize es: Int) -> [UInt8] {
        let depth = indicesShape.last ?? 0
        let outShape = Array(indicesShape.dropLast()) + Array(shape[depth...])
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            let slice = flat(Array(c[..<(indicesShape.count - 1)]), Array(indicesShape.dropLast()))
            let picked = (0..<depth).map { indices[slice * depth + $0] }
            move(params, flat(picked + Array(c[(indicesShape.count - 1)...]), shape), &output, o, es)
        }
        return output
    }

    static func pad(
        _ input: [UInt8], shape: [Int], before: [Int], after: [Int], value: [UInt8], elementSize es: Int
    ) -> [UInt8] {
        let outShape = shape.indices.map { shape[$0] + before[$0] + after[$0] }
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            let inC = c.indices.map { c[$0] - before[$0] }
            if inC.indices.allSatisfy({ inC[$0] >= 0 && inC[$0] < shape[$0] }) {
                move(input, flat(inC, shape), &output, o, es)
            } else {
                for b in 0..<es { output[o * es + b] = value[b] }
            }
        }
        return output
    }

    /// MIRROR_PAD; `symmetric` repeats the edge element, REFLECT (false) does not.
    static func mirrorPad(
        _ input: [UInt8], shape: [Int], before: [Int], after: [Int], symmetric: Bool, elementSize es: Int
    ) -> [UInt8] {
        let outShape = shape.indices.map { shape[$0] + before[$0] + after[$0] }
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            let inC = c.indices.map { d -> Int in
                let i = c[d] - before[d]
                if i < 0 { return symmetric ? -i - 1 : -i }
                if i >= shape[d] { return symmetric ? 2 * shape[d] - i - 1 : 2 * shape[d] - i - 2 }
                return i
            }
            move(input, flat(inC, shape), &output, o, es)
        }
        return output
    }
}
