import Foundation

/// Class names by class index, read from a labels file.
///
/// Three layouts are understood: one label per line (line *i* names class *i*), `id label` lines
/// where every non-empty line starts with a distinct integer (e.g. `0 mug`), and TensorFlow object
/// detection `label_map.pbtxt` files (`item { id: 1 name: "sedan" display_name: "Sedan" }`, the
/// display name preferred). AutoML's Python-bytes
/// spelling `b'Cheese'` is unwrapped to `Cheese`.
public struct LabelMap: Equatable, Sendable {
    /// Label text by class index.
    public let labels: [Int: String]

    /// Labels parsed from the text of a labels file.
    public init(text: String) {
        if let items = LabelMap.protoItems(text) {
            labels = items
            return
        }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\r")) }
        var trimmed = lines
        while let last = trimmed.last, last.trimmingCharacters(in: .whitespaces).isEmpty { trimmed.removeLast() }
        var numbered = [Int: String]()
        var isNumbered = !trimmed.isEmpty
        for line in trimmed where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = line.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 2, let id = Int(parts[0]), numbered[id] == nil else {
                isNumbered = false
                break
            }
            numbered[id] = LabelMap.unwrap(parts[1].trimmingCharacters(in: .whitespaces))
        }
        if isNumbered {
            labels = numbered
        } else {
            var map = [Int: String]()
            for (i, line) in trimmed.enumerated() {
                map[i] = LabelMap.unwrap(line.trimmingCharacters(in: .whitespaces))
            }
            labels = map
        }
    }

    /// Labels read from the file at `path`.
    ///
    /// - Throws: ``VisionError/invalidLabels(detail:)`` when the file cannot be read or is not UTF-8.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw VisionError.invalidLabels(detail: "cannot read labels file '\(path)'")
        }
        try self.init(data: data, source: path)
    }

    /// Labels from the bytes of a labels file; `source` names it in errors.
    public init(data: Data, source: String) throws {
        guard let text = String(data: data, encoding: .utf8) else {
            throw VisionError.invalidLabels(detail: "labels file '\(source)' is not UTF-8 text")
        }
        self.init(text: text)
    }

    /// The number of labelled classes.
    public var count: Int { labels.count }

    /// The label of class `index`, or an empty string.
    public subscript(index: Int) -> String { labels[index] ?? "" }

    /// Drops the first line's class (`background`, `???`) so that class `c` is named by line `c + 1`.
    public func shifted(by offset: Int) -> LabelMap {
        LabelMap(
            labels: Dictionary(
                uniqueKeysWithValues: labels.compactMap { $0.key - offset >= 0 ? ($0.key - offset, $0.value) : nil }))
    }

    init(labels: [Int: String]) { self.labels = labels }

    static func unwrap(_ label: String) -> String {
        if label.count >= 3,
            (label.hasPrefix("b'") && label.hasSuffix("'")) || (label.hasPrefix("b\"") && label.hasSuffix("\""))
        {
            return String(label.dropFirst(2).dropLast())
        }
        return label
    }

    /// The id → name map of a `label_map.pbtxt`, or nil when `text` is not one.
    static func protoItems(_ text: String) -> [Int: String]? {
        guard text.range(of: #"^\s*item\s*\{"#, options: .regularExpression) != nil else { return nil }
        var items = [Int: String]()
        for block in text.components(separatedBy: "item").dropFirst() {
            guard let open = block.firstIndex(of: "{"), let close = block.firstIndex(of: "}"), open < close else {
                continue
            }
            let body = String(block[block.index(after: open)..<close])
            func field(_ name: String) -> String? {
                guard
                    let range = body.range(
                        of: #"\b"# + name + #"\s*:\s*("[^"]*"|'[^']*'|[^\s]+)"#, options: .regularExpression)
                else { return nil }
                let value = body[range].split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
                return value.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            }
            guard let id = field("id").flatMap({ Int($0) }), let name = field("display_name") ?? field("name") else {
                continue
            }
            items[id] = name
        }
        return items.isEmpty ? nil : items
    }
}
