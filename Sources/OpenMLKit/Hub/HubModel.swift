import Crypto
import Foundation

/// One immutable published version of a hosted model, as the hub describes it.
///
/// The hub sends this as JSON (dates in ISO 8601); `sha256` is the lowercase hex digest of the
/// file, which is also the download's `ETag` and what a client verifies before installing.
public struct HubModelVersion: Codable, Sendable, Equatable, Hashable {
    /// The model's name.
    public var name: String
    /// The version number, 1 for the first publish, counting up.
    public var version: Int
    /// The file's size in bytes.
    public var size: Int64
    /// The file's SHA-256, lowercase hex.
    public var sha256: String
    /// When the version was published.
    public var publishedAt: Date
    /// The publisher's Ed25519 signature of ``ModelSignature/message(name:sha256:)``, base64; nil
    /// for an unsigned version.
    public var signature: String?
    /// How many complete downloads the hub has counted (only in answers to the admin token; nil
    /// elsewhere). Counts are written in batches, so they may lag a few seconds.
    public var downloads: Int?

    /// A version descriptor.
    public init(
        name: String, version: Int, size: Int64, sha256: String, publishedAt: Date, signature: String? = nil,
        downloads: Int? = nil
    ) {
        self.name = name
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.publishedAt = publishedAt
        self.signature = signature
        self.downloads = downloads
    }

    /// The value of the `ETag` header for this version's bytes.
    public var entityTag: String { "\"\(sha256)\"" }
}

/// Which version of a model which installations get: the hub's answer to Firebase's A/B tests.
///
/// Rules are tried in order. A group rule matches installations that report that group; a
/// percentage rule takes the next `percent` of the 0–100 range into which each installation is
/// hashed (stable per model and installation ID), so rules `[30 → v2, 20 → v3]` give 30% v2, 20%
/// v3. Installations no rule matches get `defaultVersion`, or the latest version when it is nil.
public struct HubRollout: Codable, Sendable, Equatable {
    /// One rule of a rollout.
    public struct Rule: Codable, Sendable, Equatable {
        /// Matches installations that report this group, when set.
        public var group: String?
        /// Takes this share (0–100) of installations, when set.
        public var percent: Double?
        /// The version served to matching installations.
        public var version: Int

        /// A group rule.
        public static func group(_ name: String, version: Int) -> Rule { Rule(group: name, percent: nil, version: version) }
        /// A percentage rule.
        public static func percent(_ share: Double, version: Int) -> Rule { Rule(group: nil, percent: share, version: version) }
    }

    /// The rules, tried in order.
    public var rules: [Rule]
    /// The version for installations no rule matches; nil means the latest.
    public var defaultVersion: Int?

    /// A rollout.
    public init(rules: [Rule] = [], defaultVersion: Int? = nil) {
        self.rules = rules
        self.defaultVersion = defaultVersion
    }
}

/// A hosted model with all its versions, as listed by the hub.
public struct HubModel: Codable, Sendable, Equatable {
    /// The model's name.
    public var name: String
    /// Every published version, oldest first.
    public var versions: [HubModelVersion]
    /// How versions are served to installations.
    public var rollout: HubRollout

    /// A model listing.
    public init(name: String, versions: [HubModelVersion], rollout: HubRollout) {
        self.name = name
        self.versions = versions
        self.rollout = rollout
    }

    /// The newest version, if any.
    public var latest: HubModelVersion? { versions.max { $0.version < $1.version } }

    /// The value of the `ETag` header for this model's state: its name, its versions (number and
    /// SHA-256 each; a published version never changes) and its rollout. Download counts are not
    /// part of it, so downloads do not make an admin's `If-Match` fail.
    public var entityTag: String {
        var state = name + "\n"
        for version in versions.sorted(by: { $0.version < $1.version }) { state += "\(version.version):\(version.sha256)\n" }
        state += (try? HubJSON.encoder().encode(rollout)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let digest = SHA256.hash(data: Data(state.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return "\"m-\(digest)\""
    }
}

/// The JSON coders the hub and its clients share (ISO 8601 dates, sorted keys).
public enum HubJSON {
    /// An encoder for hub messages.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder for hub messages.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// Model names the hub and the clients accept.
public enum HubNames {
    /// The longest accepted model name.
    public static let maximumLength = 128

    /// Whether `name` is an acceptable model name: 1–128 characters from `A-Z a-z 0-9 . _ -`,
    /// starting with a letter or digit, never `..` — so a name is always a safe single path
    /// component and URL segment.
    public static func isValidModelName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maximumLength, !name.contains("..") else { return false }
        for (i, byte) in name.utf8.enumerated() {
            let alnum = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if i == 0 && !alnum { return false }
            if !alnum && byte != 0x2E && byte != 0x5F && byte != 0x2D { return false }
        }
        return true
    }

    /// Whether `name` is an acceptable group name (same alphabet as model names).
    public static func isValidGroupName(_ name: String) -> Bool { isValidModelName(name) }
}
