import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import OpenMLKit

extension HubServer {
    /// Receives a model file into this process's staging area, checks it (size, digest,
    /// signature shape, the runtime's verifier), stores it durably, and only then catalogues it:
    /// a crash at any point leaves at most an unreferenced blob, which the reconciler removes.
    func publish(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let name = try validName(context)
        do {
            try await checkEarly(request, name: name)
            return try await receive(request, name: name)
        } catch let error as HubError {
            metrics.uploadRejected(reason: Self.rejectionReason(error))
            throw error
        } catch let error as ModelPreconditionFailed {
            metrics.uploadRejected(reason: "precondition_failed")  // If-Match named another state
            throw error
        } catch let error as HTTPParserError {
            metrics.uploadRejected(reason: "bad_request")  // cut off or garbled by the client
            throw error
        } catch let error as IOError {
            metrics.uploadRejected(reason: "bad_request")  // the client's connection broke (staging writes are not NIO's)
            throw error
        } catch {
            metrics.uploadRejected(reason: "storage")
            throw error
        }
    }

    private func receive(_ request: Request, name: String) async throws -> Response {
        let limit = configuration.maxUploadBytes
        if let declared = request.headers[.contentLength].flatMap(Int64.init), declared > limit {
            throw HubError(.contentTooLarge, "the model is \(declared) bytes; this hub accepts at most \(limit)")
        }
        let signature = request.headers[HTTPField.Name("X-Model-Signature")!]
        if let signature, !ModelSignature.isWellFormed(signature) {
            throw HubError.badRequest("X-Model-Signature is not a base64 Ed25519 signature (64 bytes)")
        }
        let upload = try blobs.beginUpload()
        do {
            var hasher = SHA256()
            var size: Int64 = 0
            for try await buffer in request.body {
                size += Int64(buffer.readableBytes)
                if size > limit {
                    throw HubError(.contentTooLarge, "the model is larger than this hub accepts (\(limit) bytes)")
                }
                try buffer.withUnsafeReadableBytes { bytes in
                    hasher.update(bufferPointer: bytes)
                    try upload.write(bytes)
                }
            }
            try upload.close()
            let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
            if let expected = request.headers[HTTPField.Name("X-Model-SHA256")!], expected.lowercased() != digest {
                throw HubError.badRequest(
                    "the upload's SHA-256 is \(digest), the client sent \(expected.prefix(64)): damaged in transit")
            }
            try validateModelFile(upload.url, size: size)
            let key = try blobs.commit(upload)
            do {
                let version = try await catalog.addVersion(
                    NewModelVersion(name: name, size: size, sha256: digest, signature: signature, blobKey: key, publishedAt: Date()),
                    if: condition(request))
                return try json(version, status: .created, etag: version.entityTag)
            } catch {
                blobs.delete(key: key)
                throw error
            }
        } catch {
            upload.discard()
            throw error
        }
    }

    private static func rejectionReason(_ error: HubError) -> String {
        switch error.status {
        case .contentTooLarge: return "too_large"
        case .unprocessableContent: return "invalid_model"
        case .badRequest: return error.message.contains("SHA-256") ? "digest_mismatch" : "bad_request"
        default: return "other"
        }
    }

    /// Only files the runtime can load are published: a broken upload is refused here, not on
    /// devices. The verifier's message is passed on without the staging file's path.
    private func validateModelFile(_ url: URL, size: Int64) throws {
        guard size > 0 else { throw HubError(.unprocessableContent, "the model file is empty") }
        do {
            _ = try TFLiteModelCheck.check(path: url.path)
        } catch {
            let reason = error.localizedDescription
                .replacingOccurrences(of: url.path, with: "the upload")
                .replacingOccurrences(of: url.deletingLastPathComponent().path, with: "")
            throw HubError(.unprocessableContent, "not a valid TensorFlow Lite model: \(reason)")
        }
    }

    func setRollout(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let model = try await existingModel(context)
        let limit = 1 << 20
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw HubError(.contentTooLarge, "a rollout is at most \(limit) bytes of JSON")
        }
        let body = try await request.body.collect(upTo: limit)
        let rollout: HubRollout
        do {
            rollout = try HubJSON.decoder().decode(HubRollout.self, from: Data(buffer: body))
        } catch {
            throw HubError.badRequest("the rollout is not valid JSON of the expected shape")
        }
        if rollout.rules.count > configuration.maxRolloutRules {
            throw HubError(
                .unprocessableContent,
                "the rollout has \(rollout.rules.count) rules; this hub accepts at most \(configuration.maxRolloutRules)")
        }
        if let problem = RolloutAssignment.problem(with: rollout, for: model) {
            throw HubError(.unprocessableContent, problem)
        }
        guard try await catalog.setRollout(rollout, for: model.name, if: condition(request)),
            let updated = try await catalog.model(named: model.name)
        else { throw HubError.notFound("no model named '\(model.name)'") }
        return try json(updated, etag: updated.entityTag)
    }

    /// Un-catalogues first, then removes the files: a crash in between leaves unreferenced blobs
    /// (removed by the reconciler), never a version without its file.
    func delete(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let name = try validName(context)
        guard let keys = try await catalog.deleteModel(named: name, if: condition(request)) else {
            throw HubError.notFound("no model named '\(name)'")
        }
        versionCache.forget(model: name)
        for key in keys { blobs.delete(key: key) }
        return Response(status: .noContent)
    }
}
