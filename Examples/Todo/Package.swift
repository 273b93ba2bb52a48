// swift-tools-version:6.0
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which depends on where the repository
// was cloned; derive it instead of hard-coding it.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "Todo",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "todo", targets: ["todo"]),
    ],
    dependencies: [
        .package(path: "../.."),
    ],
    targets: [
        .target(
            name: "TodoCore",
            dependencies: [.product(name: "AppStateKit", package: rootPackage)],
            path: "Core",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "todo",
            dependencies: ["TodoCore"],
            path: "CLI",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "TodoTests",
            dependencies: [
                "TodoCore",
                "todo",
                .product(name: "AppStateKit", package: rootPackage),
                .product(name: "AppStateKitTesting", package: rootPackage),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
