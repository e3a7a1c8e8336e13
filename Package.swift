// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenMLKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "TFLiteRuntime", targets: ["TFLiteRuntime"]),
        .library(name: "OpenMLKit", targets: ["OpenMLKit"]),
        .executable(name: "mlkit", targets: ["mlkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The runtime depends on nothing but the toolchain. Its kernels hand raw buffer pointers to
        // parallel workers, which Swift 6's strict Sendable checking rejects wholesale, so the
        // runtime stays in the Swift 5 language mode; the executor never shares mutable state
        // between workers except through disjoint output ranges.
        .target(
            name: "TFLiteRuntime",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "OpenMLKit",
            dependencies: ["TFLiteRuntime"]
        ),
        .executableTarget(
            name: "mlkit",
            dependencies: [
                "TFLiteRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Resources/demo")]
        ),
        .testTarget(
            name: "TFLiteRuntimeTests",
            dependencies: ["TFLiteRuntime"],
            resources: [.copy("Fixtures")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "OpenMLKitTests",
            dependencies: ["OpenMLKit", "TFLiteRuntime"]
        ),
        .testTarget(
            name: "mlkitTests",
            dependencies: ["mlkit"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
