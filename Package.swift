// swift-tools-version:6.0
import PackageDescription

// Linux-only system libraries and the epoll/netlink code are conditioned so that
// RealtimeCore keeps compiling on any platform (it links no C target and touches no file
// descriptor), so an Apple backend can sit beside the Linux one.
let linux = TargetDependencyCondition.when(platforms: [Platform.linux])

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-realtime",
    products: [
        .library(name: "Realtime", targets: ["Realtime"]),
        .library(name: "RealtimeLLM", targets: ["RealtimeLLM"]),
        .library(name: "RealtimeMCP", targets: ["RealtimeMCP"]),
        .library(name: "RealtimeSocketIO", targets: ["RealtimeSocketIO"]),
        .library(name: "RealtimeGraphQL", targets: ["RealtimeGraphQL"]),
        .library(name: "RealtimeTesting", targets: ["RealtimeTesting"]),
        .library(name: "RealtimeTestServer", targets: ["RealtimeTestServer"]),
        .executable(name: "rtcat", targets: ["rtcat"]),
        .executable(name: "RealtimeBenchmarks", targets: ["RealtimeBenchmarks"]),
        .executable(name: "LLMChat", targets: ["LLMChat"]),
        .executable(name: "Chat", targets: ["Chat"]),
        .executable(name: "Ticker", targets: ["Ticker"]),
        .executable(name: "MCPClient", targets: ["MCPClient"]),
    ],
    targets: [
        // MARK: System libraries (Debian packages named in `providers`).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(name: "CLinux"),

        // MARK: Library modules, bottom-up.
        // The one JSON value type and its parser (MCP's values, heartbeat replies compared as
        // JSON, rtcat's output); re-exported by RealtimeMCP, not by Realtime.
        .target(
            name: "RealtimeJSON",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RealtimeCore",
            dependencies: ["RealtimeJSON"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RealtimeIO",
            dependencies: [
                "RealtimeCore",
                .target(name: "CCurl", condition: linux),
                .target(name: "COpenSSL", condition: linux),
                .target(name: "CLinux", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RealtimeSSE",
            dependencies: [
                "RealtimeCore", "RealtimeIO",
                .target(name: "CCurl", condition: linux),
                .target(name: "COpenSSL", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RealtimeWebSocket",
            dependencies: [
                "RealtimeCore", "RealtimeIO",
                .target(name: "COpenSSL", condition: linux),
                .target(name: "CZlib", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Realtime",
            dependencies: ["RealtimeCore", "RealtimeIO", "RealtimeSSE", "RealtimeWebSocket"],
            swiftSettings: swiftSettings
        ),
        // The LLM kit, its own product: the stream formats' decoders and the client's typed
        // deltas, replies and presets on top of `Realtime`.
        .target(
            name: "RealtimeLLM",
            dependencies: ["Realtime", "RealtimeCore", "RealtimeJSON"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RealtimeMCP",
            dependencies: ["Realtime", "RealtimeCore", "RealtimeJSON"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RealtimeSocketIO",
            dependencies: ["Realtime"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RealtimeGraphQL",
            dependencies: ["Realtime"],
            swiftSettings: swiftSettings
        ),
        // The test seam, shipped: the manual loop (a scheduler and a clock), the embedded byte
        // stream and scripted curl the production transports run on, and their servers.
        .target(
            name: "RealtimeTesting",
            dependencies: [
                "Realtime", "RealtimeCore", "RealtimeIO", "RealtimeSSE", "RealtimeWebSocket",
                .target(name: "CCurl", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RealtimeTestServer",
            dependencies: [
                "RealtimeCore",
                .target(name: "COpenSSL", condition: linux),
                .target(name: "CZlib", condition: linux),
                .target(name: "CLinux", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Programs.
        .executableTarget(
            name: "rtcat",
            dependencies: ["Realtime", "RealtimeJSON", "RealtimeLLM", "RealtimeMCP", "RealtimeTestServer"],
            path: "Examples/rtcat",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LLMChat",
            dependencies: ["Realtime", "RealtimeLLM", "RealtimeTestServer"],
            path: "Examples/LLMChat",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "Chat",
            dependencies: ["Realtime", "RealtimeTestServer"],
            path: "Examples/Chat",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "Ticker",
            dependencies: ["Realtime", "RealtimeTestServer"],
            path: "Examples/Ticker",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MCPClient",
            dependencies: ["RealtimeMCP"],
            path: "Examples/MCPClient",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "RealtimeBenchmarks",
            dependencies: ["Realtime", "RealtimeLLM", "RealtimeTestServer", .target(name: "CLinux", condition: linux)],
            path: "Benchmarks/RealtimeBenchmarks",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests.
        .target(
            name: "RealtimeTestSupport",
            dependencies: ["RealtimeCore", "RealtimeTestServer"],
            path: "Tests/Support",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeCoreTests",
            dependencies: ["RealtimeCore", "RealtimeIO", "RealtimeJSON", "RealtimeTestServer", "RealtimeTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeIOTests",
            dependencies: ["RealtimeIO", "RealtimeTestSupport", "RealtimeTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeSSETests",
            dependencies: [
                "RealtimeSSE", "RealtimeTestServer", "RealtimeTestSupport", "RealtimeTesting",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeWebSocketTests",
            dependencies: ["RealtimeWebSocket", "RealtimeTestServer", "RealtimeTestSupport", "RealtimeTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeLLMTests",
            dependencies: ["RealtimeLLM", "RealtimeTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeMCPTests",
            dependencies: ["RealtimeMCP", "RealtimeTestServer", "RealtimeTestSupport", "RealtimeTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeSocketIOTests",
            dependencies: ["RealtimeSocketIO", "RealtimeTestServer", "RealtimeTestSupport", "RealtimeTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeGraphQLTests",
            dependencies: ["RealtimeGraphQL", "RealtimeTestServer", "RealtimeTestSupport", "RealtimeTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RealtimeTests",
            dependencies: [
                "Realtime", "RealtimeLLM", "RealtimeTestServer", "RealtimeTestSupport", "RealtimeTesting",
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
