import Foundation

/// Finds an executable product (e.g. `rtcat`) of the build the running tests come from.
/// `swift build --build-tests` builds every product, so tests can run the real binaries.
public enum BuiltExecutable {
    public static func url(named name: String, testFile: String = #filePath) -> URL? {
        var dirs: [URL] = []
        if let exe = Bundle.main.executableURL { dirs.append(exe.deletingLastPathComponent()) }
        dirs.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        // Tests/<Target>/<File>.swift → the package root.
        let root = URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        dirs.append(root.appendingPathComponent(".build/debug"))
        // Inside an .xctest bundle the binary sits next to the bundle, not inside it.
        dirs += dirs.map { $0.deletingLastPathComponent() }
        return dirs.map { $0.appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
