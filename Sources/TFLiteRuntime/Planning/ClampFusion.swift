/// A float32 ADD whose sum only a RELU-like clamp reads, run as one pass by the ADD's kernel
/// (`BinaryElementwiseKernel.evalFused`) while the clamp's node is skipped.
///
/// MediaPipe's face detectors end every residual block with ADD then RELU: run apart, each is a pass
/// over memory and, with threads, a fork/join of the pool. Fused, every element still goes through
/// the ADD's loop and then the clamp's, so the results are the same bits. The ADD's own output is then
/// left unwritten, which is why the pair is fused only when nothing else reads that sum (no other
/// operator, not a graph output) and why ``SubgraphExecutor`` runs the nodes apart when a caller
/// observes every node's outputs.
struct ClampFusion {
    /// The ADD's node index and the clamp's (next to each other in the execution order).
    let producer: Int
    let consumer: Int
    /// The ADD's kernel, which runs both.
    let add: BinaryElementwiseKernel
    /// The clamp's output, which the fused ADD writes.
    let destination: RuntimeTensor
    /// The clamp's range.
    let lower: Float
    let upper: Float

    /// The pairs to fuse among `order` (node indices in execution order); `excluded` tells the nodes
    /// that must run on their own (prepared at run time, or folded at prepare).
    static func find(
        _ graph: ModelSubgraph, order: [Int], nodes: [Node], kernels: [OpKernel], excluded: (Int) -> Bool
    ) -> [ClampFusion] {
        var readers = [Int: Int]()
        for op in graph.operators {
            for t in op.inputs where t >= 0 { readers[t, default: 0] += 1 }
        }
        let graphOutputs = Set(graph.outputs)
        var found = [ClampFusion]()
        var step = 0
        while step + 1 < order.count {
            let p = order[step], c = order[step + 1]
            step += 1
            guard !excluded(p), !excluded(c), let add = kernels[p] as? BinaryElementwiseKernel,
                let clamp = kernels[c] as? UnaryKernel
            else { continue }
            let producer = nodes[p], consumer = nodes[c]
            guard add.isFusableFloatAdd(producer), let range = clamp.floatClampRange(consumer),
                producer.outputs.count == 1, consumer.outputs.count == 1, consumer.inputs.count == 1,
                let sum = producer.outputs.first, consumer.inputs[0] === sum, !sum.isVariable, !sum.isDynamic,
                readers[sum.index] == 1, !graphOutputs.contains(sum.index),
                let destination = consumer.outputs.first, destination.type == .float32,
                destination.elementCount == sum.elementCount, destination !== sum
            else { continue }
            found.append(
                ClampFusion(
                    producer: p, consumer: c, add: add, destination: destination, lower: range.lower,
                    upper: range.upper))
            // The clamp is taken: the next pair starts after it.
            step += 1
        }
        return found
    }
}
