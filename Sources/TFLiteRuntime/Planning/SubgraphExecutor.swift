import CKernels
import Dispatch
/// Runs one subgraph: orders its nodes, infers shapes, plans the arena, and invokes the kernels.
final class SubgraphExecutor {
    let model: Model
    let subgraphIndex: Int
    let threadCount: Int
    let planner: MemoryPlanner
    private(set) var tensors: [RuntimeTensor]
    private(set) var nodes: [Node] = []
    private var kernels: [OpKernel] = []
    /// Node indices (into `nodes`) in execution order.
    private(set) var order: [Int] = []
    /// The nodes in execution order with their kernels, rebuilt by every `allocate()`: what the
    /// invoke loop walks.
    private var steps: [Step] = []
    /// The nodes evaluated at prepare (their outputs bound to constants held here), by node index.
    private var folds: [Int: FoldedOutputs] = [:]
    /// The ADD + clamp pairs run as one pass, rebuilt by every `allocate()`.
    private var fusions: [ClampFusion] = []
    /// `steps` again, unretained, so that the loop reads them without reference counting (the
    /// array above keeps them alive).
    private var unretainedSteps: [Unmanaged<Step>] = []
    private var arena: UnsafeMutableRawPointer?
    private(set) var arenaSize = 0
    private var constantCopies: [UnsafeMutableRawPointer] = []
    /// Where the kernels keep the weights they repack (made for about twice the constant bytes: int16
    /// copies of 8-bit filters are the largest layout any kernel packs).
    let weightArena: WeightArena
    fileprivate(set) var isAllocated = false

    var subgraph: ModelSubgraph { model.subgraphs[subgraphIndex] }

    /// The interpreter-wide state this subgraph shares with the others (held weakly: the
    /// interpreter or signature runner that made it owns it).
    private(set) weak var context: ExecutionContext?
    /// The operator resolver, kept so kernels can be made without the context.
    let resolver: OperatorResolver
    /// The context's worker threads and cancellation flag, held here so that an invoke reads no
    /// weak reference (neither refers back to the context or the executor).
    private let pool: ThreadPool?
    let cancellation: CancellationFlag
    /// True while `invoke` runs: a control-flow operator that re-enters this subgraph is refused.
    private(set) var isInvoking = false

    init(context: ExecutionContext, subgraphIndex: Int, planner: MemoryPlanner = GreedyBySizePlanner()) throws {
        self.context = context
        self.model = context.model
        self.resolver = context.resolver
        self.subgraphIndex = subgraphIndex
        self.threadCount = context.threadCount
        self.planner = planner
        self.pool = context.pool
        self.cancellation = context.cancellation
        let model = context.model
        let graph = model.subgraphs[subgraphIndex]
        tensors = graph.tensors.enumerated().map { i, t in
            RuntimeTensor(
                index: i, name: t.name, type: t.type, shape: t.shape, quantization: t.quantization,
                isVariable: t.isVariable)
        }
        for (i, t) in graph.tensors.enumerated() {
            tensors[i].sparsity = t.sparsity
        }
        let constantBytes = graph.tensors.reduce(0) { $0 + model.bufferBytes($1.buffer).count }
        weightArena = WeightArena(expectedBytes: 2 * constantBytes + (256 << 10))
        try bindConstants()
    }

    /// Where constants without elements point (never read: they have no bytes).
    private static let emptyConstant = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)

    deinit {
        arena?.deallocate()
        for block in constantCopies { block.deallocate() }
    }

    /// Points constant tensors at the model bytes; copies the few that are misaligned, that are graph
    /// inputs or variables (both are written to), so nothing ever writes into the mapped file.
    private func bindConstants() throws {
        let graph = subgraph
        let produced = Set(graph.operators.flatMap(\.outputs))
        let writable = Set(graph.inputs).union(graph.tensors.indices.filter { graph.tensors[$0].isVariable })
        for (i, t) in graph.tensors.enumerated() {
            let bytes = model.bufferBytes(t.buffer)
            guard bytes.count > 0, let base = bytes.baseAddress else {
                // A constant with no elements (a shape operand of shape [0]) stores no bytes, yet its
                // values, none, are known: bound as a constant, what depends on it folds. Read as
                // unknown, it made everything after it dynamic: BirdNET's activations all lived
                // outside the arena (114 MB against 2 MB planned).
                if t.buffer != 0, !produced.contains(i), !writable.contains(i), t.shape.contains(0),
                    t.type != .string, t.type.byteSize > 0
                {
                    tensors[i].bindConstant(UnsafeRawPointer(SubgraphExecutor.emptyConstant), byteCount: 0)
                }
                continue
            }
            if produced.contains(i) {
                throw ModelError.invalidValue(
                    what: "subgraph \(subgraphIndex) tensor \(i)", detail: "has constant data but is written by an operator")
            }
            let tensor = tensors[i]
            if writable.contains(i) {
                try tensor.allocateOwned()
                tensor.raw.baseAddress?.copyMemory(from: base, byteCount: min(bytes.count, tensor.byteCount))
                continue
            }
            let alignment = max(1, min(t.type.byteSize, 16))
            if Int(bitPattern: base) % alignment == 0 {
                tensor.bindConstant(base, byteCount: bytes.count)
            } else {
                let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 64)
                copy.copyMemory(from: base, byteCount: bytes.count)
                constantCopies.append(copy)
                tensor.bindConstant(copy, byteCount: bytes.count)
            }
        }
    }

    /// Builds kernels on first use; fails for operators this runtime does not support.
    private func buildNodes() throws {
        guard nodes.isEmpty else { return }
        let graph = subgraph
        order = try SubgraphExecutor.executionOrder(graph, subgraphIndex: subgraphIndex)
        var built = [Node]()
        var builtKernels = [OpKernel]()
        for (n, op) in graph.operators.enumerated() {
            let code = model.operatorCodes[op.opcodeIndex]
            let node = Node(
                index: n, code: code, inputs: op.inputs.map { $0 >= 0 ? tensors[$0] : nil },
                outputs: op.outputs.map { tensors[$0] }, intermediates: op.intermediates.map { tensors[$0] },
                options: try model.options(of: op, what: "subgraph \(subgraphIndex) operator \(n) options"),
                customOptions: model.customOptions(of: op), threadCount: threadCount,
                weightArena: weightArena)
            node.context = context
            node.options2 = try model.options2(of: op, what: "subgraph \(subgraphIndex) operator \(n) options 2")
            if let reason = resolver.unsupportedReason(code) { throw RuntimeError("node \(n): \(reason)") }
            guard let factory = resolver.factory(for: code) else {
                throw RuntimeError("node \(n): operator \(code.displayName) is not supported")
            }
            built.append(node)
            builtKernels.append(try factory(node))
        }
        nodes = built
        kernels = builtKernels
    }

    /// Kahn's topological sort, keeping the model's order among ready nodes; rejects cycles.
    static func executionOrder(_ graph: ModelSubgraph, subgraphIndex: Int) throws -> [Int] {
        var producer = [Int: Int]()
        for (n, op) in graph.operators.enumerated() {
            for t in op.outputs {
                if let other = producer[t] {
                    throw ModelError.invalidValue(
                        what: "subgraph \(subgraphIndex) tensor \(t)", detail: "is written by operators \(other) and \(n)")
                }
                producer[t] = n
            }
        }
        var pending = [Int](repeating: 0, count: graph.operators.count)
        var consumers = [[Int]](repeating: [], count: graph.operators.count)
        for (n, op) in graph.operators.enumerated() {
            for t in Set(op.inputs) where t >= 0 {
                if let p = producer[t], p != n {
                    pending[n] += 1
                    consumers[p].append(n)
                } else if producer[t] == n {
                    throw ModelError.invalidValue(
                        what: "subgraph \(subgraphIndex) operator \(n)", detail: "reads its own output tensor \(t)")
                }
            }
        }
        // A min-heap would be O(n log n); models have at most a few thousand nodes, and the common case
        // (already in order) makes the scan below stop at once.
        var ready = pending.indices.filter { pending[$0] == 0 }
        var result = [Int]()
        result.reserveCapacity(graph.operators.count)
        while !ready.isEmpty {
            let next = ready.removeFirst()
            result.append(next)
            for c in consumers[next] {
                pending[c] -= 1
                if pending[c] == 0 {
                    let at = ready.firstIndex { $0 > c } ?? ready.count
                    ready.insert(c, at: at)
                }
            }
        }
        guard result.count == graph.operators.count else {
            throw ModelError.invalidValue(what: "subgraph \(subgraphIndex)", detail: "operators form a cycle")
        }
        return result
    }

    /// Infers every shape, plans the arena and binds tensors to memory.
    func allocate() throws {
        try buildNodes()
        isAllocated = false
        let graph = subgraph
        // Nodes whose `prepare` runs at invoke time, because some input or output size is only known then.
        var deferred = [Bool](repeating: false, count: nodes.count)
        for t in tensors where !t.isConstant && !t.isVariable {
            if case .owned = t.storage, graph.inputs.contains(t.index) { continue }
            t.isDynamic = false
        }
        let release = FoldRelease(order: order, nodes: nodes, kept: Set(graph.outputs))
        for (step, n) in order.enumerated() {
            let node = nodes[n]
            // A fold of a previous allocate is recomputed (a resize may have changed its inputs).
            try folds[n]?.reset(node)
            node.isRunning = false
            node.hasDynamicOutputs = false
            if node.inputs.contains(where: { $0?.isDynamic == true }) {
                deferred[n] = true
            } else {
                try kernels[n].prepare(node)
                deferred[n] = node.hasDynamicOutputs
                if !deferred[n] { try foldIfConstant(n, node) }
            }
            if deferred[n] { node.outputs.forEach { $0.isDynamic = true } }
            release.afterPreparing(step: step, kernels: kernels)
        }
        fusions = ClampFusion.find(graph, order: order, nodes: nodes, kernels: kernels) {
            deferred[$0] || self.folds[$0]?.isActive == true
        }
        try planArena()
        let byProducer = Dictionary(uniqueKeysWithValues: fusions.map { ($0.producer, $0) })
        let absorbed = Set(fusions.map(\.consumer))
        steps = order.map {
            Step(
                node: nodes[$0], kernel: kernels[$0], index: $0, deferred: deferred[$0],
                folded: folds[$0]?.isActive == true, fusion: byProducer[$0], absorbed: absorbed.contains($0))
        }
        unretainedSteps = steps.filter { !$0.folded && !$0.absorbed }.map { Unmanaged.passUnretained($0) }
        isAllocated = true
    }

    /// Shape arithmetic whose inputs are all constants runs once, here, and its small outputs become
    /// constants (as LiteRT computes such tensors in `Prepare` and makes them persistent read-only):
    /// what reads them then knows their values when prepared, so the shapes that follow are static and
    /// their tensors share the arena. Only operators without state or randomness, and outputs of at
    /// most `ConstantFolding.maximumBytes`.
    private func foldIfConstant(_ n: Int, _ node: Node) throws {
        guard ConstantFolding.operators.contains(node.code.builtin), !node.outputs.isEmpty,
            node.inputs.contains(where: { $0 != nil }),
            node.inputs.allSatisfy({ $0?.isConstant ?? true }),
            node.outputs.allSatisfy({ !$0.isConstant && !$0.isVariable && $0.type.byteSize > 0 && $0.type != .string }),
            node.outputs.reduce(0, { $0 + $1.requiredBytes }) <= ConstantFolding.maximumBytes
        else { return }
        let fold = folds[n] ?? FoldedOutputs()
        folds[n] = fold
        node.isRunning = true
        defer { node.isRunning = false }
        try fold.fold(node) { try kernels[n].eval(node) }
    }

    private func planArena() throws {
        let graph = subgraph
        let last = order.count
        var first = [Int: Int]()
        var lastUse = [Int: Int]()
        let pinned = Set(graph.inputs).union(graph.outputs)
        // A fused clamp's output is written by the ADD before it: it lives from the ADD's step on, so
        // that it shares no memory with the ADD's inputs.
        let absorbed = Set(fusions.map(\.consumer))
        for (step, n) in order.enumerated() {
            let op = graph.operators[n]
            let written = absorbed.contains(n) ? max(step - 1, 0) : step
            for t in op.outputs where first[t] == nil { first[t] = written }
            for t in op.intermediates where first[t] == nil { first[t] = step }
            for t in op.inputs + op.intermediates where t >= 0 { lastUse[t] = step }
            for t in op.inputs where t >= 0 && first[t] == nil { first[t] = 0 }
        }
        var requests = [AllocationRequest]()
        for t in tensors {
            // Strings are sized by their contents, not their shape: they get blocks of their own.
            if t.isConstant || t.isVariable || t.isDynamic || t.type == .string { continue }
            if case .owned = t.storage { continue }
            let used = first[t.index] != nil || pinned.contains(t.index)
            guard used else { continue }
            let lo = pinned.contains(t.index) ? 0 : first[t.index] ?? 0
            let hi = pinned.contains(t.index) ? last : max(lastUse[t.index] ?? lo, lo)
            requests.append(AllocationRequest(tensor: t.index, size: t.requiredBytes, firstUse: lo, lastUse: hi))
        }
        let plan = planner.plan(requests)
        // TensorFlowLiteSwift's error for memory that cannot be had.
        guard plan.size <= Model.maxTensorBytes else { throw InterpreterError.failedToAllocateTensors }
        if plan.size > arenaSize || arena == nil {
            arena?.deallocate()
            arena = UnsafeMutableRawPointer.allocate(byteCount: max(plan.size, arenaAlignment), alignment: arenaAlignment)
            arenaSize = plan.size
        }
        guard let base = arena else { return }
        for r in requests {
            tensors[r.tensor].bindArena(base: base, offset: plan.offsets[r.tensor] ?? 0)
        }
        // Tensors read before anything writes them (state without an initializer) start as zeros.
        // Tensors outside the arena (dynamic ones, variables, initialized inputs, and state read before
        // anything writes it) get their own block, resized to the current shape.
        let inArena = Set(requests.map(\.tensor))
        for t in tensors where !t.isConstant && !inArena.contains(t.index) {
            var owned = false
            if case .owned = t.storage { owned = true }
            if owned || t.isDynamic || t.isVariable || first[t.index] != nil || pinned.contains(t.index) {
                try t.allocateOwned()
            }
        }
    }

    /// Runs every node in order; `timing`, when given, receives each node's index and duration in
    /// nanoseconds after it ran. With `fused` false, the ADD + clamp pairs of `ClampFusion` run as
    /// two nodes (each node's own outputs are then written, for callers that observe them all); with
    /// it true, a fused clamp is not reported (its ADD's time includes it).
    func invoke(fused: Bool = true, timing: ((Int, UInt64) -> Void)? = nil) throws {
        guard isAllocated else { throw InterpreterError.allocateTensorsRequired }
        guard !isInvoking else {
            throw RuntimeError("subgraph \(subgraphIndex) is already running (a control-flow operator calls it recursively)")
        }
        isInvoking = true
        defer { isInvoking = false }
        // Parallel kernels run on this interpreter's pool for the length of the invoke.
        let previousPool = omk_pool_set_current(pool?.pool)
        defer { omk_pool_set_current(previousPool) }
        let cancellation = self.cancellation
        if let timing {
            for step in steps {
                if cancellation.isRaised { throw RuntimeError.cancelled }
                if fused && step.absorbed { continue }
                let start = DispatchTime.now().uptimeNanoseconds
                defer { timing(step.index, DispatchTime.now().uptimeNanoseconds - start) }
                // A node folded at prepare is reported (its outputs hold its values) but not run.
                if !step.folded { try run(step, fused: fused) }
            }
            return
        }
        try unretainedSteps.withUnsafeBufferPointer { steps in
            for step in steps {
                if cancellation.isRaised { throw RuntimeError.cancelled }
                try step._withUnsafeGuaranteedRef { try run($0, fused: true) }
            }
        }
    }

    /// Runs one node: its run-time prepare when it has one, then its kernel.
    @inline(__always)
    private func run(_ step: Step, fused: Bool) throws {
        let node = step.node
        if step.deferred { try prepareDeferred(step) }
        node.isRunning = true
        defer { node.isRunning = false }
        if fused, let fusion = step.fusion {
            try fusion.add.evalFused(node, into: fusion.destination, lower: fusion.lower, upper: fusion.upper)
        } else {
            try step.kernel.eval(node)
        }
    }

    /// Prepares a deferred node at run time, as LiteRT re-prepares only what a resize can change: a
    /// node whose output shapes depend on input values (it marks its outputs dynamic when prepared
    /// without them) is prepared on every invoke; any other only when its input shapes or types
    /// differ from those of its last prepare. (Before, every node downstream of a dynamic tensor,
    /// such as a streaming model's READ_VARIABLE, was prepared, weights repacked, on every invoke:
    /// 50-90 us per invoke on a wake-word model that LiteRT runs in 3 us.)
    private func prepareDeferred(_ step: Step) throws {
        let node = step.node
        // The sum of the inputs' layout versions changes whenever one of them does (none decreases).
        var signature = 0
        step.inputs.withUnsafeBufferPointer { inputs in
            for t in inputs { signature &+= t._withUnsafeGuaranteedRef { $0.layoutVersion } &+ 1 }
        }
        if step.valueDependent == false, let previous = step.preparedSignature, previous == signature { return }
        if step.valueDependent == true, step.preparedSignature == signature, step.kernel.isStillPrepared(node) { return }
        step.preparedSignature = nil
        if step.valueDependent == nil {
            // Asks the kernel, as `allocate` did for nodes whose inputs were known: prepared without
            // input values, does it need them?
            node.hasDynamicOutputs = false
            node.isRunning = false
            try step.kernel.prepare(node)
            step.valueDependent = node.hasDynamicOutputs
        }
        node.isRunning = true
        defer { node.isRunning = false }
        try step.kernel.prepare(node)
        for t in node.outputs { try t.allocateOwned() }
        step.preparedSignature = signature
    }

    /// How many nodes were evaluated at prepare, and how many are prepared at run time (tests check
    /// that shape arithmetic on constants leaves no node deferred).
    var foldedNodeCount: Int { steps.filter(\.folded).count }
    var deferredNodeCount: Int { steps.filter(\.deferred).count }
    /// How many ADD + clamp pairs run as one pass (tests check which models fuse).
    var fusedNodeCount: Int { fusions.count }

    /// The operator name of each node, for profiling and inspection.
    var nodeNames: [String] { nodes.map(\.opName) }

    /// The kernel class chosen for each node (tests check which path a resolver picked).
    var kernelTypeNames: [String] { kernels.map { String(describing: type(of: $0)) } }
}

/// Which operators the executor evaluates at prepare when all their inputs are constants.
enum ConstantFolding {
    /// Deterministic, stateless operators that shape computations use (`SHAPE` → arithmetic →
    /// `PACK`/`CONCATENATION` → `RESHAPE`/`STRIDED_SLICE` operands).
    static let operators: Set<BuiltinOperator> = [
        .add, .sub, .mul, .div, .floorDiv, .floorMod, .maximum, .minimum, .neg, .abs, .square,
        .pack, .unpack, .concatenation, .reshape, .squeeze, .expandDims, .stridedSlice, .slice,
        .gather, .gatherND, .range, .shape, .rank, .cast, .fill, .tile, .transpose, .split, .splitV,
        .sum, .reduceProd, .reduceMax, .reduceMin, .select, .selectV2, .equal, .notEqual, .less,
        .lessEqual, .greater, .greaterEqual, .logicalAnd, .logicalOr, .logicalNot, .broadcastTo,
        .broadcastArgs, .zerosLike,
    ]
    /// Outputs larger than this stay computed at run time (shape operands are a few integers).
    static let maximumBytes = 1 << 16
}

/// One node of the invoke loop: its node and kernel, read through `let` fields of a reference the
/// loop holds unretained, so that a step costs no reference counting (a tiny model spent a third
/// of its invoke retaining and releasing: a 45-node wake-word model took 9 us, LiteRT 2 us).
private final class Step {
    let node: Node
    let kernel: OpKernel
    /// The node's index in `nodes`, for timing and the deferred-prepare state.
    let index: Int
    /// Whether the node is prepared at run time.
    let deferred: Bool
    /// Whether the node was evaluated at prepare (constant inputs): the fast loop leaves it out.
    let folded: Bool
    /// For an ADD that runs the clamp after it too: the pair; and whether this node is such a clamp
    /// (the fast loop leaves it out).
    let fusion: ClampFusion?
    let absorbed: Bool
    /// The node's inputs, unretained (the node holds them): a deferred node reads their layout
    /// versions on every invoke.
    let inputs: [Unmanaged<RuntimeTensor>]
    /// For a deferred node: the input layouts its last run-time `prepare` saw (nil before the
    /// first), and whether its output shapes depend on input values (nil until known).
    var preparedSignature: Int?
    var valueDependent: Bool?

    init(node: Node, kernel: OpKernel, index: Int, deferred: Bool, folded: Bool, fusion: ClampFusion?, absorbed: Bool) {
        self.node = node
        self.kernel = kernel
        self.index = index
        self.deferred = deferred
        self.folded = folded
        self.fusion = fusion
        self.absorbed = absorbed
        inputs = node.inputs.compactMap { $0.map { Unmanaged.passUnretained($0) } }
    }
}

extension SubgraphExecutor {
    /// Marks the plan stale after an input was resized.
    func invalidate() { isAllocated = false }
}

/// Frees weights folded while preparing (float16 filters dequantized, sparse ones expanded) as soon
/// as every node reading them has been prepared and holds its own copy (a convolution's packed
/// panels, a folded DEQUANTIZE). An fp16 model then holds its float weights once, packed, instead of
/// twice (a sparse one three times), and at most one layer's unpacked copy is alive at a time while
/// preparing, so the peak is lower too. Graph outputs are kept. The next `allocate` folds them again.
private struct FoldRelease {
    /// For each tensor, the nodes reading it: their step in `order` and the input position.
    private var readers = [Int: [(step: Int, node: Int, input: Int)]]()
    /// The step of each tensor's producer.
    private var producer = [Int: Int]()
    private let order: [Int]
    private let nodes: [Node]
    private let kept: Set<Int>

    init(order: [Int], nodes: [Node], kept: Set<Int>) {
        self.order = order
        self.nodes = nodes
        self.kept = kept
        for (step, n) in order.enumerated() {
            for (i, t) in nodes[n].inputs.enumerated() {
                if let t { readers[t.index, default: []].append((step, n, i)) }
            }
            for t in nodes[n].outputs { producer[t.index] = step }
        }
    }

    /// Called once the node at `step` was prepared: releases the folds it was the last reader of.
    func afterPreparing(step: Int, kernels: [OpKernel]) {
        for input in nodes[order[step]].inputs {
            guard let input, let p = producer[input.index], p < step else { continue }
            let node = nodes[order[p]]
            guard let fold = kernels[order[p]].releasableFold, fold.isActive else { continue }
            let consumed = node.outputs.allSatisfy { t in
                guard t.isConstant, !kept.contains(t.index), let uses = readers[t.index], !uses.isEmpty else { return false }
                // Every reader prepared in this pass (a later one may hold a copy from a previous pass).
                return uses.allSatisfy { $0.step <= step && kernels[$0.node].holdsOwnCopy(ofInput: $0.input) }
            }
            if consumed { fold.release(node) }
        }
    }
}
