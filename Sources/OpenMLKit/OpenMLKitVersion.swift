/// The version of OpenMLKit, as CHANGELOG.md's latest entry and the release tag give it.
public enum OpenMLKitVersion {
    /// The version string, semantic versioning (`MAJOR.MINOR.PATCH`); `mlkit --version` prints it.
    public static let string = "0.1.0"
}
