// swift-tools-version:6.0
import PackageDescription

// Modules split only where dependencies differ: the runtime needs nothing but the toolchain, the
// ML Kit layer adds hashing for verified downloads, vision links the system image codecs, and the
// hub pulls the HTTP server, SQLite and the PostgreSQL client.
let package = Package(
    name: "OpenMLKit",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "TFLiteRuntime", targets: ["TFLiteRuntime"]),
        .library(name: "OpenMLKit", targets: ["OpenMLKit"]),
        .library(name: "OpenMLKitVision", targets: ["OpenMLKitVision"]),
        .library(name: "ModelHub", targets: ["ModelHub"]),
        .executable(name: "mlkit", targets: ["mlkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // The runtime depends on nothing but the toolchain. Its kernels hand raw buffer pointers to
        // parallel workers, which Swift 6's strict Sendable checking rejects wholesale, so the
        // runtime stays in the Swift 5 language mode; the executor never shares mutable state
        // between workers except through disjoint output ranges.
        .target(
            name: "TFLiteRuntime",
            dependencies: ["CKernels"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // NumPy .npy reading and writing: the CLI's and the tests' interchange format, kept out of the
        // runtime's public API (which stays TensorFlowLiteSwift's).
        .target(name: "NumPyFiles", dependencies: ["TFLiteRuntime"]),
        // C microkernels with per-function target attributes (AVX2+FMA, AVX-512), chosen at run time
        // from the CPU's features; the Swift kernels remain the portable path.
        .target(name: "CKernels"),
        .target(
            name: "OpenMLKit",
            dependencies: [
                "TFLiteRuntime",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Thin C wrappers around the system image codecs (Debian: libjpeg62-turbo-dev, libpng-dev):
        // libjpeg and libpng report errors by longjmp, which only C can catch.
        .target(
            name: "CImageCodecs",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16")]
        ),
        .target(
            name: "OpenMLKitVision",
            dependencies: ["OpenMLKit", "TFLiteRuntime", "CImageCodecs"]
        ),
        // Evaluation tooling (tracking and localization benchmarks with their ground truth), kept out
        // of the vision library; `mlkit track-bench` and `mlkit localize-bench` link it.
        .target(name: "VisionEvaluation", dependencies: ["OpenMLKitVision", "OpenMLKit"]),
        .target(
            name: "ModelHub",
            dependencies: [
                "OpenMLKit",
                "TFLiteRuntime",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "mlkit",
            dependencies: [
                "TFLiteRuntime",
                "NumPyFiles",
                "OpenMLKit",
                "OpenMLKitVision",
                "VisionEvaluation",
                "ModelHub",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Resources/demo")]
        ),
        .testTarget(
            name: "TFLiteRuntimeTests",
            dependencies: ["TFLiteRuntime", "NumPyFiles"],
            resources: [.copy("Fixtures")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "OpenMLKitTests",
            dependencies: ["OpenMLKit", "OpenMLKitVision", "TFLiteRuntime", "ModelHub", "NumPyFiles"],
            exclude: ["Goldens"]
        ),
        .testTarget(
            name: "OpenMLKitVisionTests",
            dependencies: ["OpenMLKitVision", "OpenMLKit", "TFLiteRuntime", "VisionEvaluation"]
        ),
        // The tests reach PostgreSQL directly to create a fresh database for each test.
        .testTarget(
            name: "ModelHubTests",
            dependencies: ["ModelHub", "OpenMLKit", .product(name: "PostgresNIO", package: "postgres-nio")]
        ),
        .testTarget(
            name: "mlkitTests",
            dependencies: ["mlkit"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
