#if os(Linux)
import Foundation
import Realtime
import Testing

/// Where the conformance suite runs a contract test: against the production transport on
/// the embedded loop (a manual scheduler, an in-memory byte stream or a scripted curl, and a
/// peer the test plays), or on loopback against the in-repo test server.
enum ConformanceEnvironment: String, Sendable, CaseIterable {
    case embedded, loopback
}

/// One row of the suite: an environment and a transport kind.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    let environment: ConformanceEnvironment
    let kind: TransportKind

    /// Every environment × every kind; only one environment when `RT_CONFORMANCE_ENVIRONMENT`
    /// names it (`embedded` or `loopback`).
    static let all: [ConformanceCase] = environments.flatMap { environment in
        TransportFixture.kinds.map { ConformanceCase(environment: environment, kind: $0) }
    }

    private static var environments: [ConformanceEnvironment] {
        let only = ProcessInfo.processInfo.environment["RT_CONFORMANCE_ENVIRONMENT"].flatMap(ConformanceEnvironment.init)
        return only.map { [$0] } ?? ConformanceEnvironment.allCases
    }

    static let loopback = all.filter { $0.environment == .loopback }
    static let embedded = all.filter { $0.environment == .embedded }

    var testDescription: String { "\(environment.rawValue) \(kind)" }

    /// The peer for this row (a new test server on loopback).
    func rig() throws -> any ConformanceRig {
        switch environment {
        case .embedded: EmbeddedRig(kind)
        case .loopback: try TransportFixture(kind)
        }
    }
}
#endif
