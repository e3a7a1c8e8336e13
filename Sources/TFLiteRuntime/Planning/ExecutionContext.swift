import CKernels
import Foundation

/// What the subgraphs of one interpreter share: the model, the operator resolver, the thread count,
/// one executor per subgraph (control-flow operators run other subgraphs through it), and the
/// resources that live as long as the interpreter (resource variables, hash tables, CALL_ONCE).
///
/// Executors hold their context weakly; the interpreter (or signature runner) that made the
/// context keeps it alive. Not thread-safe, like the interpreter.
final class ExecutionContext {
    let model: Model
    let resolver: OperatorResolver
    let threadCount: Int
    /// This interpreter's worker threads (nil at one thread), stopped when the context goes.
    let pool: ThreadPool?
    private var executors: [Int: SubgraphExecutor] = [:]
    /// Resource variables and hash tables, by resource id.
    var resources = ResourceStore()
    /// Subgraphs CALL_ONCE has already run.
    var initializedSubgraphs = Set<Int>()
    /// Set by `Interpreter.cancel()` from any thread; executors check it before every node and
    /// WHILE before every turn.
    let cancellation = CancellationFlag()

    init(model: Model, resolver: OperatorResolver, threadCount: Int) {
        self.model = model
        self.resolver = resolver
        self.threadCount = max(1, threadCount)
        pool = ThreadPool(threads: self.threadCount)
    }

    /// The executor of subgraph `index`, made on first use.
    func executor(for index: Int) throws -> SubgraphExecutor {
        if let existing = executors[index] { return existing }
        guard index >= 0, index < model.subgraphs.count else {
            throw RuntimeError("subgraph \(index) does not exist (the model has \(model.subgraphs.count))")
        }
        let made = try SubgraphExecutor(context: self, subgraphIndex: index)
        executors[index] = made
        return made
    }
}

/// A flag one thread sets and another polls (the cancellation of a running invoke). The executor
/// polls it before every node, so it is one relaxed atomic word (a plain load), not a lock.
final class CancellationFlag: @unchecked Sendable {
    private let word: UnsafeMutablePointer<Int32>

    init() {
        word = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        word.initialize(to: 0)
    }

    deinit { word.deallocate() }

    /// Whether `raise()` was called since the last `clear()`.
    var isRaised: Bool { omk_flag_load(word) != 0 }

    func raise() { omk_flag_store(word, 1) }

    func clear() { omk_flag_store(word, 0) }
}
