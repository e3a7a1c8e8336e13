import Crypto
import Foundation

/// Ed25519 signatures over a hosted model's name and SHA-256.
///
/// The publisher signs `message(name:sha256:)` with a private key that never leaves their
/// machine; the hub stores the signature beside the version and serves it; an app configured with
/// the publisher's public key (``ModelManager/Configuration/trustedSigningKeys``) installs only
/// files whose name and digest carry a valid signature. Binding the name means a signed file
/// cannot be served under another model's name; binding the digest (which the download is
/// checked against) means no altered byte passes.
public enum ModelSignature {
    /// The signed bytes: a fixed domain label, the model's name and its lowercase hex SHA-256.
    public static func message(name: String, sha256: String) -> Data {
        Data("openmlkit-model-signature-v1\n\(name)\n\(sha256.lowercased())".utf8)
    }

    /// Signs `name` and `sha256` with `key`; the base64 signature for `X-Model-Signature`.
    public static func sign(name: String, sha256: String, with key: ModelSigningKey) throws -> String {
        try key.privateKey().signature(for: message(name: name, sha256: sha256)).base64EncodedString()
    }

    /// Whether `signature` (base64) is a valid signature of `name` and `sha256` by any of `keys`.
    public static func isValid(_ signature: String, name: String, sha256: String, keys: [ModelSigningPublicKey]) -> Bool {
        guard let bytes = Data(base64Encoded: signature), bytes.count == 64 else { return false }
        let message = message(name: name, sha256: sha256)
        return keys.contains { key in
            (try? Curve25519.Signing.PublicKey(rawRepresentation: key.raw))?.isValidSignature(bytes, for: message) ?? false
        }
    }

    /// Whether `text` has the shape of a signature (base64 of 64 bytes); says nothing of validity.
    public static func isWellFormed(_ text: String) -> Bool { Data(base64Encoded: text)?.count == 64 }

    /// Checks `version` against `keys`: throws ``ModelDownloadError/signatureMissing(_:)`` or
    /// ``ModelDownloadError/signatureInvalid(_:)``. With no keys, every version passes.
    public static func verify(_ version: HubModelVersion, keys: [ModelSigningPublicKey]) throws {
        guard !keys.isEmpty else { return }
        guard let signature = version.signature else { throw ModelDownloadError.signatureMissing(version.name) }
        guard isValid(signature, name: version.name, sha256: version.sha256, keys: keys) else {
            throw ModelDownloadError.signatureInvalid(version.name)
        }
    }
}

/// An Ed25519 private key for signing models (`mlkit hub keygen` writes one).
public struct ModelSigningKey: Sendable {
    /// The raw 32-byte private key (kept as bytes: Crypto's key type is not `Sendable`).
    private let raw: Data

    /// A new random key.
    public init() { raw = Curve25519.Signing.PrivateKey().rawRepresentation }

    func privateKey() throws -> Curve25519.Signing.PrivateKey { try Curve25519.Signing.PrivateKey(rawRepresentation: raw) }

    /// The key in a file written by ``write(to:)``: the raw 32-byte key, base64, one line.
    ///
    /// - Throws: ``ModelSigningKeyError`` when the file cannot be read or holds no such key.
    public init(contentsOf url: URL) throws {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw ModelSigningKeyError.unreadable(url.lastPathComponent)
        }
        guard let raw = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), raw.count == 32,
            (try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)) != nil
        else { throw ModelSigningKeyError.malformed(url.lastPathComponent, "a base64 Ed25519 private key (32 bytes)") }
        self.raw = raw
    }

    /// The matching public key.
    public var publicKey: ModelSigningPublicKey {
        // `raw` was checked to be a valid key when this value was made.
        ModelSigningPublicKey(raw: try! privateKey().publicKey.rawRepresentation)
    }

    /// Writes the key to `url` with mode 0600, and the public key to `url` + `.pub`; refuses to
    /// overwrite an existing key file.
    public func write(to url: URL) throws {
        let fm = FileManager.default
        guard !fm.fileExists(atPath: url.path) else { throw ModelSigningKeyError.exists(url.path) }
        let secret = Data((raw.base64EncodedString() + "\n").utf8)
        guard fm.createFile(atPath: url.path, contents: secret, attributes: [.posixPermissions: 0o600]) else {
            throw ModelSigningKeyError.unwritable(url.path)
        }
        let publicURL = URL(fileURLWithPath: url.path + ".pub")
        guard fm.createFile(atPath: publicURL.path, contents: Data((publicKey.base64 + "\n").utf8)) else {
            throw ModelSigningKeyError.unwritable(publicURL.path)
        }
    }
}

/// An Ed25519 public key that an app trusts to sign its models.
public struct ModelSigningPublicKey: Sendable, Equatable {
    /// The raw 32-byte key.
    let raw: Data

    init(raw: Data) { self.raw = raw }

    /// A key from its base64 raw form (the content of a `.pub` file); nil when malformed.
    public init?(base64: String) {
        guard let raw = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)), raw.count == 32,
            (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil
        else { return nil }
        self.raw = raw
    }

    /// The key in a `.pub` file.
    public init(contentsOf url: URL) throws {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw ModelSigningKeyError.unreadable(url.lastPathComponent)
        }
        guard let key = ModelSigningPublicKey(base64: text) else {
            throw ModelSigningKeyError.malformed(url.lastPathComponent, "a base64 Ed25519 public key (32 bytes)")
        }
        self = key
    }

    /// The raw key, base64.
    public var base64: String { raw.base64EncodedString() }
}

/// A signing key file that cannot be used.
public enum ModelSigningKeyError: Error, Equatable, Sendable {
    /// The file cannot be read.
    case unreadable(String)
    /// The file does not hold the expected key.
    case malformed(String, String)
    /// A key file is already there (keygen never overwrites one).
    case exists(String)
    /// The key file cannot be written.
    case unwritable(String)
}

extension ModelSigningKeyError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .unreadable(let file): return "cannot read the key file '\(file)'"
        case .malformed(let file, let expected): return "'\(file)' does not hold \(expected)"
        case .exists(let path): return "\(path) exists already; not overwriting a key"
        case .unwritable(let path): return "cannot write \(path)"
        }
    }
}
