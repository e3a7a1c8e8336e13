import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A downloaded model as it is installed in the cache.
public struct DownloadedModel: Codable, Sendable, Equatable {
    /// The model's name.
    public var name: String
    /// The hub's version number.
    public var version: Int
    /// The file's SHA-256, lowercase hex (verified when installed).
    public var sha256: String
    /// The file's size in bytes.
    public var size: Int64
    /// When the version was published on the hub.
    public var publishedAt: Date
    /// When this version was installed here.
    public var downloadedAt: Date
    /// The model file.
    public var path: String
}

/// The on-disk cache of downloaded models.
///
/// Layout under the cache directory:
/// ```
/// installation-id            this installation's ID (sent to the hub for rollouts)
/// models/<name>/model.json   the installed version (DownloadedModel), replaced atomically
/// models/<name>/v<N>.tflite  the installed file
/// models/<name>/partial.tflite + partial.json   a download in progress (resumable)
/// ```
/// A new version becomes visible only when `model.json` is renamed into place after the file
/// was verified, so readers see either the old version or the new one, never a mix.
///
/// Every operation checks the name by the hub's own rule (``HubNames/isValidModelName(_:)``)
/// and refuses a `models` or model directory that is a symbolic link, so no name — `../x`, an
/// absolute path, a planted link — reaches a file outside the cache.
struct ModelStore: Sendable {
    let root: URL

    private var modelsDirectory: URL { root.appendingPathComponent("models", isDirectory: true) }

    /// The directory of model `name`; throws for an invalid name or a symbolic link on the way.
    func directory(for name: String) throws -> URL {
        guard HubNames.isValidModelName(name) else { throw ModelDownloadError.invalidModelName(name) }
        let directory = modelsDirectory.appendingPathComponent(name, isDirectory: true)
        // The cache root is the user's choice and may be a link; what lies inside it may not.
        for url in [modelsDirectory, directory] where Self.isSymbolicLink(url) {
            throw ModelDownloadError.storage(
                "'\(url.lastPathComponent)' in the model cache is a symbolic link; refusing to follow it")
        }
        return directory
    }

    func partialFile(for name: String) throws -> URL { try directory(for: name).appendingPathComponent("partial.tflite") }
    private func partialRecord(for name: String) throws -> URL { try directory(for: name).appendingPathComponent("partial.json") }
    private func record(for name: String) throws -> URL { try directory(for: name).appendingPathComponent("model.json") }

    private static func isSymbolicLink(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// This installation's ID, created on first use.
    func installationID() throws -> String {
        let url = root.appendingPathComponent("installation-id")
        if let text = try? String(contentsOf: url, encoding: .utf8) {
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !id.isEmpty { return id }
        }
        let id = UUID().uuidString.lowercased()
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try Data(id.utf8).write(to: url, options: .atomic)
        } catch {
            throw ModelDownloadError.storage("cannot write \(url.path): \(error.localizedDescription)")
        }
        return id
    }

    /// The installed version of `name`, if its record and file are present.
    func installed(_ name: String) -> DownloadedModel? {
        guard let directory = try? directory(for: name), let record = try? record(for: name),
            let data = try? Data(contentsOf: record),
            let model = try? HubJSON.decoder().decode(DownloadedModel.self, from: data),
            // The record names a file of this model's own directory, never one elsewhere.
            model.name == name, model.path == directory.appendingPathComponent("v\(model.version).tflite").path,
            !Self.isSymbolicLink(URL(fileURLWithPath: model.path)),
            FileManager.default.fileExists(atPath: model.path)
        else { return nil }
        return model
    }

    /// Every installed model, sorted by name.
    func allInstalled() -> [DownloadedModel] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: modelsDirectory.path)) ?? []
        return names.sorted().compactMap { installed($0) }
    }

    /// The bytes already downloaded towards `version`, or nil when no partial download of exactly
    /// this version exists (a partial of another version is discarded).
    func resumableBytes(for version: HubModelVersion) -> Int64? {
        let name = version.name
        guard let recordURL = try? partialRecord(for: name), let partialURL = try? partialFile(for: name),
            !Self.isSymbolicLink(partialURL), let data = try? Data(contentsOf: recordURL),
            let recorded = try? HubJSON.decoder().decode(HubModelVersion.self, from: data),
            recorded.sha256 == version.sha256, recorded.size == version.size,
            let attributes = try? FileManager.default.attributesOfItem(atPath: partialURL.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value, size <= version.size
        else {
            discardPartial(name)
            return nil
        }
        return size
    }

    /// Starts an empty partial download of `version`.
    func beginPartial(_ version: HubModelVersion) throws {
        let directory = try directory(for: version.name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try HubJSON.encoder().encode(version).write(to: partialRecord(for: version.name), options: .atomic)
            guard FileManager.default.createFile(atPath: try partialFile(for: version.name).path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
        } catch {
            throw ModelDownloadError.storage("cannot start a download in \(directory.path): \(error.localizedDescription)")
        }
    }

    /// Removes a partial download.
    func discardPartial(_ name: String) {
        guard let file = try? partialFile(for: name), let record = try? partialRecord(for: name) else { return }
        try? FileManager.default.removeItem(at: file)
        try? FileManager.default.removeItem(at: record)
    }

    /// Moves a verified partial download into place as the installed version and removes older
    /// files. Open interpreters keep the file they mapped.
    func install(_ version: HubModelVersion) throws -> DownloadedModel {
        let directory = try directory(for: version.name)
        let file = directory.appendingPathComponent("v\(version.version).tflite")
        let fm = FileManager.default
        do {
            if fm.fileExists(atPath: file.path) { try fm.removeItem(at: file) }
            try fm.moveItem(at: partialFile(for: version.name), to: file)
            let model = DownloadedModel(
                name: version.name, version: version.version, sha256: version.sha256, size: version.size,
                publishedAt: version.publishedAt,
                // Whole seconds, as the record stores them: the returned value equals a later read.
                downloadedAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), path: file.path)
            try HubJSON.encoder().encode(model).write(to: record(for: version.name), options: .atomic)
            try? fm.removeItem(at: partialRecord(for: version.name))
            for entry in (try? fm.contentsOfDirectory(atPath: directory.path)) ?? []
            where entry.hasPrefix("v") && entry.hasSuffix(".tflite") && entry != file.lastPathComponent {
                try? fm.removeItem(at: directory.appendingPathComponent(entry))
            }
            return model
        } catch {
            throw ModelDownloadError.storage("cannot install \(file.path): \(error.localizedDescription)")
        }
    }

    /// Removes everything stored for `name`; false when nothing was there.
    func remove(_ name: String) throws -> Bool {
        let directory = try directory(for: name)
        guard FileManager.default.fileExists(atPath: directory.path) else { return false }
        do { try FileManager.default.removeItem(at: directory) } catch {
            throw ModelDownloadError.storage("cannot delete \(directory.path): \(error.localizedDescription)")
        }
        return true
    }

    /// The SHA-256 of a file, lowercase hex.
    static func sha256(of url: URL) throws -> String { try sha256Hex(of: url) }
}
