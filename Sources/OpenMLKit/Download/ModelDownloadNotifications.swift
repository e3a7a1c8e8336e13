import Foundation

extension Notification.Name {
    /// Posted on `NotificationCenter.default` when a model download finished and the model is
    /// available (also when the installed model was already the current one). `userInfo` holds
    /// the model under ``ModelDownloadUserInfoKey/remoteModel``.
    public static let firebaseMLModelDownloadDidSucceed = Notification.Name("FIRModelDownloadDidSucceedNotification")
    /// Posted on `NotificationCenter.default` when a model download failed. `userInfo` holds the
    /// model under ``ModelDownloadUserInfoKey/remoteModel`` and the error under
    /// ``ModelDownloadUserInfoKey/error``.
    public static let firebaseMLModelDownloadDidFail = Notification.Name("FIRModelDownloadDidFailNotification")
    /// The same notification as ``firebaseMLModelDownloadDidSucceed``, under ML Kit's name (the
    /// guides for the standalone ML Kit observe this one; both names observe one notification).
    public static let mlkitModelDownloadDidSucceed = firebaseMLModelDownloadDidSucceed
    /// The same notification as ``firebaseMLModelDownloadDidFail``, under ML Kit's name.
    public static let mlkitModelDownloadDidFail = firebaseMLModelDownloadDidFail
    /// The same notification as ``firebaseMLModelDownloadDidSucceed``, under OpenMLKit's name.
    public static let openMLKitModelDownloadDidSucceed = firebaseMLModelDownloadDidSucceed
    /// The same notification as ``firebaseMLModelDownloadDidFail``, under OpenMLKit's name.
    public static let openMLKitModelDownloadDidFail = firebaseMLModelDownloadDidFail
}

/// Keys of the download notifications' `userInfo` (use `.rawValue`, as in ML Kit's examples).
public enum ModelDownloadUserInfoKey: String, Sendable {
    /// The ``RemoteModel`` the notification is about.
    case remoteModel = "FIRModelDownloadUserInfoKeyRemoteModel"
    /// The `Error` of a failed download.
    case error = "FIRModelDownloadUserInfoKeyError"
}
