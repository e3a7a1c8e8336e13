/// SKIP_GRAM: the skip-grams of the first string of a string tensor, as a 1-D string tensor.
///
/// The sentence is split into words at ASCII white space; each output joins `ngram_size` words
/// (or 1 to `ngram_size` with `include_all_ngrams`) with single spaces, skipping at most
/// `max_skip_size` words between neighbours, in LiteRT's enumeration order. Options:
/// `SkipGramOptions` (ngram_size, max_skip_size, include_all_ngrams).
final class SkipGramKernel: OpKernel {
    let parameters: SkipGramParameters
    private var grams = [[UInt8]]()

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        // A negative ngram_size gives no n-grams, as in LiteRT.
        parameters = try SkipGramParameters(node)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        guard x.type == .string, try node.output(0).type == .string else {
            throw node.error("input and output must be string tensors")
        }
        guard node.knowsValues(of: x) else {
            node.markOutputsDynamic()
            return
        }
        let strings = try x.strings("input")
        guard let sentence = strings.first else { throw node.error("the input holds no string") }
        grams = SkipGramKernel.skipGrams(SkipGramKernel.words(sentence), parameters)
        try node.setOutput(0, type: .string, shape: [grams.count])
    }

    func eval(_ node: Node) throws {
        try node.output(0).setStrings(grams)
    }

    /// C's `isspace` in the "C" locale.
    private static func isSpace(_ c: UInt8) -> Bool { c == 32 || (9...13).contains(c) }

    /// LiteRT's split: a word ends at each white space; the first byte is only tested as a word's
    /// start, so a lone " " is one word.
    static func words(_ s: [UInt8]) -> [ArraySlice<UInt8>] {
        var words = [ArraySlice<UInt8>]()
        var start = 0
        var i = 1
        while i < s.count {
            if isSpace(s[i]) {
                if i > start && !isSpace(s[start]) { words.append(s[start..<i]) }
                start = i + 1
            }
            i += 1
        }
        if s.count > start { words.append(s[start..<s.count]) }
        return words
    }

    /// The depth-first enumeration of word-index stacks LiteRT uses.
    static func skipGrams(_ words: [ArraySlice<UInt8>], _ p: SkipGramParameters) -> [[UInt8]] {
        let n = p.ngramSize
        guard words.count >= n, n > 0 else { return [] }
        var result = [[UInt8]]()
        var stack = [Int](repeating: 0, count: n)
        var depth = 1
        func canStep(_ depth: Int) -> Bool {
            guard depth < n, stack[depth] + 1 < words.count else { return false }
            return depth == 0 || stack[depth] - stack[depth - 1] <= p.maxSkipSize
        }
        while depth >= 0 {
            if canStep(depth) {
                stack[depth] += 1
                depth += 1
                if depth < n { stack[depth] = stack[depth - 1] }
            } else {
                let include = depth > 0 && (p.includeAllNgrams ? depth <= n : depth == n)
                if include {
                    var joined = [UInt8]()
                    for k in 0..<depth {
                        if k > 0 { joined.append(32) }
                        joined.append(contentsOf: words[stack[k]])
                    }
                    result.append(joined)
                }
                depth -= 1
            }
        }
        return result
    }
}
