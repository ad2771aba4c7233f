/// Why a ``PythonPeer`` could not be started.
///
/// The description is meant to be read in a test failure: it says what to run to fix the
/// environment. Tests that need a peer fail with it; they never skip silently.
public struct PythonPeerError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    static func missingEnvironment(_ python: String) -> PythonPeerError {
        PythonPeerError(
            "\(python) not found: the third-party test peers live in a Python virtualenv. "
                + "Run `make test` (or `scripts/install-deps.sh`) once to create it."
        )
    }

    static func missingScript(_ path: String) -> PythonPeerError {
        PythonPeerError("peer script \(path) does not exist")
    }

    static func launchFailed(_ script: String, _ reason: String) -> PythonPeerError {
        PythonPeerError("could not launch \(script): \(reason)")
    }

    static func noPort(_ script: String, timedOut: Bool, output: String) -> PythonPeerError {
        let what = timedOut ? "did not print its PORT line in time" : "exited before printing its PORT line"
        return PythonPeerError("\(script) \(what) (stdout: \(output.debugDescription); its stderr is in the test log)")
    }
}
