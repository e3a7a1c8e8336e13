/// OpenMLKitVision: images in, labels and boxes out (work in progress).
public enum OpenMLKitVision {}
