import Crypto
import Foundation
import OpenMLKit

/// Chooses the version of a model an installation gets.
public enum RolloutAssignment {
    /// The installation's position in 0..<100 for `model`: the first 8 bytes of
    /// SHA-256("model:installation") as a big-endian integer, modulo 10 000, divided by 100.
    ///
    /// Stable across hub restarts and machines, and independent between models, so one
    /// installation is not always in the first percent of every experiment.
    public static func bucket(model: String, installation: String) -> Double {
        let digest = SHA256.hash(data: Data("\(model):\(installation)".utf8))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Double(value % 10_000) / 100
    }

    /// The version `model` serves to an installation with `installationID` (may be nil) in
    /// `groups`, following the rollout rules (see `HubRollout`); nil when the model has no
    /// versions. Rules naming a version that no longer exists are skipped.
    public static func version(
        of model: HubModel, installationID: String?, groups: Set<String>
    ) -> HubModelVersion? {
        let byNumber = Dictionary(uniqueKeysWithValues: model.versions.map { ($0.version, $0) })
        let bucket = installationID.map { Self.bucket(model: model.name, installation: $0) }
        var start = 0.0
        for rule in model.rollout.rules {
            if let group = rule.group {
                if groups.contains(group), let chosen = byNumber[rule.version] { return chosen }
            } else if let percent = rule.percent {
                let end = start + percent
                if let bucket, bucket >= start, bucket < end, let chosen = byNumber[rule.version] { return chosen }
                start = end
            }
        }
        if let pinned = model.rollout.defaultVersion, let chosen = byNumber[pinned] { return chosen }
        return model.latest
    }

    /// Why `rollout` cannot apply to `model`, or nil when it can: every rule has exactly one of
    /// group and percent, versions exist, percentages are in 0–100 and sum to at most 100.
    public static func problem(with rollout: HubRollout, for model: HubModel) -> String? {
        let numbers = Set(model.versions.map(\.version))
        var total = 0.0
        for (i, rule) in rollout.rules.enumerated() {
            switch (rule.group, rule.percent) {
            case (let group?, nil):
                if !HubNames.isValidGroupName(group) { return "rule \(i): invalid group name '\(group)'" }
            case (nil, let percent?):
                if !(percent >= 0 && percent <= 100) { return "rule \(i): percent \(percent) is not within 0–100" }
                total += percent
            default:
                return "rule \(i): give exactly one of \"group\" and \"percent\""
            }
            if !numbers.contains(rule.version) {
                return "rule \(i): model '\(model.name)' has no version \(rule.version)"
            }
        }
        if total > 100 { return "percentages add up to \(total), more than 100" }
        if let pinned = rollout.defaultVersion, !numbers.contains(pinned) {
            return "default version \(pinned) does not exist"
        }
        return nil
    }
}
