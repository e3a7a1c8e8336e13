/// HASHTABLE_LOOKUP (the classic one): finds int32 lookup keys in a sorted int32 key tensor and
/// copies the matching rows of the value tensor.
///
/// Inputs: lookups `[n]` int32, keys `[rows]` int32 sorted ascending, values `[rows, ...]` of any
/// fixed-size type, or `[rows]` strings. Outputs: the rows `[n, ...]` (zeros, or an empty string,
/// for a missing key) and hits `[n]` uint8 (1 found, 0 missing). No options.
final class HashtableLookupKernel: OpKernel {
    init(_ node: Node) throws {
        try node.expect(inputs: 3, outputs: 2)
    }

    func prepare(_ node: Node) throws {
        let lookups = try node.input(0)
        let keys = try node.input(1)
        let values = try node.input(2)
        guard lookups.rank == 1, lookups.type == .int32 else { throw node.error("lookups must be a 1-D int32 tensor") }
        guard keys.rank == 1, keys.type == .int32 else { throw node.error("keys must be a 1-D int32 tensor") }
        guard values.rank >= 1, values.shape[0] == keys.shape[0] else {
            throw node.error("values \(values.shape) must have one row per key (\(keys.shape[0]))")
        }
        let output = try node.output(0)
        guard output.type == values.type else {
            throw node.error("output type \(output.type.name) differs from the values' \(values.type.name)")
        }
        guard try node.output(1).type == .uint8 else { throw node.error("hits output must be UINT8") }
        if values.type == .string {
            guard values.rank == 1 else { throw node.error("string values must be 1-D") }
        } else if values.type.byteSize == 0 {
            throw node.error("values of type \(values.type.name) are not supported")
        }
        try node.setOutput(0, type: values.type, shape: [lookups.shape[0]] + values.shape.dropFirst())
        try node.setOutput(1, type: .uint8, shape: [lookups.shape[0]])
    }

    func eval(_ node: Node) throws {
        let lookups = try node.elementwiseBuffer(try node.input(0), Int32.self, role: "lookups")
        let keys = try node.elementwiseBuffer(try node.input(1), Int32.self, role: "keys")
        let values = try node.input(2)
        let output = try node.output(0)
        let hits = try node.elementwiseBuffer(try node.output(1), UInt8.self, role: "hits")
        let rows = keys.count
        guard hits.count == lookups.count else { throw node.error("hits output is not sized like the lookups") }
        if values.type == .string {
            let strings = try values.strings("values")
            var found = [[UInt8]]()
            found.reserveCapacity(lookups.count)
            for i in 0..<lookups.count {
                let row = HashtableLookupKernel.search(lookups[i], in: keys)
                hits[i] = row == nil ? 0 : 1
                found.append(row.map { strings[$0] } ?? [])
            }
            try output.setStrings(found)
            return
        }
        guard rows > 0 || lookups.isEmpty else { throw node.error("the table has no rows") }
        let rowBytes = rows == 0 ? 0 : values.requiredBytes / rows
        let source = values.raw
        let destination = output.raw
        guard source.count >= rows * rowBytes, destination.count >= lookups.count * rowBytes else {
            throw node.error("values or output hold fewer bytes than their shapes need")
        }
        for i in 0..<lookups.count {
            let target = destination.baseAddress.map { $0 + i * rowBytes }
            if let row = HashtableLookupKernel.search(lookups[i], in: keys) {
                hits[i] = 1
                if let target, let s = source.baseAddress {
                    target.copyMemory(from: s + row * rowBytes, byteCount: rowBytes)
                }
            } else {
                hits[i] = 0
                target?.initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes)
            }
        }
    }

    /// The row of `key`, probing as C's `bsearch` does with LiteRT's comparator (a wrapping
    /// `key - element`), so unsorted or extreme keys give LiteRT's answer.
    static func search(_ key: Int32, in keys: UnsafeMutableBufferPointer<Int32>) -> Int? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            let order = key &- keys[middle]
            if order < 0 {
                high = middle
            } else if order > 0 {
                low = middle + 1
            } else {
                return middle
            }
        }
        return nil
    }
}
