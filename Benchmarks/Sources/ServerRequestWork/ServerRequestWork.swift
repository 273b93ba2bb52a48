import AppStateKit
import Synchronization

/// The example server's per-request work (`GET /api/flags/:name` in Examples/HummingbirdServer),
/// through AppStateKit and in plain Swift: counted in instructions by appstatekit-profile's
/// `server-request` and timed, caches warm and evicted, by appstatekit-benchmarks' section 6e.
public enum ServerRequestWork {
    /// The directory of the FileState the request reads; set it before the first request.
    // Safe: set once, before any request, then only read.
    nonisolated(unsafe) public static var directory = ""

    /// One request through AppStateKit: a State update, a counter dependency, a scoped override
    /// of the request's info, the repository dependency (an existential, as the server's)
    /// reading a FileState, and a StoredState read from `\.userDefaults`.
    @inline(never)
    public static func appStateKit(_ info: String) -> Int {
        Application.update(\.serverRequests) { $0 += 1 }
        Application.dependency(\.serverServed).count.add(1, ordering: .relaxed)
        return Application.withOverrides { $0.override(\.serverRequestInfo, with: info) } operation: {
            let flag = try? Application.dependency(\.serverRepository).flag(named: "alpha")
            return flag ?? (Application.storedState(\.serverDefault).value ? 1 : 0)
        }
    }

    /// The same request in plain Swift: a locked counter, an atomic, a task-local and locked
    /// values (as the example's `/equivalent` route).
    @inline(never)
    public static func plainSwift(_ info: String) -> Int {
        Plain.requestCount.withLock { $0 += 1 }
        Plain.served.add(1, ordering: .relaxed)
        return Plain.$requestInfo.withValue(info) {
            let flag = Plain.flags.withLock { $0["alpha"] }
            return flag ?? (Plain.defaultEnabled.withLock { $0 } ? 1 : 0)
        }
    }

    /// The served-requests counter dependency.
    final class ServedCount: Sendable {
        let count = Atomic<Int>(0)
    }

    /// The example's flag repository, reduced to its read.
    protocol FlagsRepository: Sendable {
        func flag(named name: String) throws -> Int?
    }

    struct FileFlagsRepository: FlagsRepository {
        func flag(named name: String) throws -> Int? {
            try Application.fileState(\.serverFlags).read()[name]
        }
    }

    enum Plain {
        static let requestCount = Mutex<Int>(0)
        static let served = Atomic<Int>(0)
        static let flags = Mutex<[String: Int]>([:])
        static let defaultEnabled = Mutex<Bool>(false)
        @TaskLocal static var requestInfo = "none"
    }
}

extension Application {
    var serverRequests: State<Int> { state(initial: 0, feature: "ServerRequest", id: "requests") }
    var serverServed: Dependency<ServerRequestWork.ServedCount> { dependency(ServerRequestWork.ServedCount(), feature: "ServerRequest", id: "served") }
    var serverRequestInfo: Dependency<String> { dependency("none", feature: "ServerRequest", id: "request") }
    var serverRepository: Dependency<any ServerRequestWork.FlagsRepository> {
        dependency(ServerRequestWork.FileFlagsRepository(), feature: "ServerRequest", id: "repository")
    }
    var serverDefault: StoredState<Bool> { storedState(initial: false, feature: "ServerRequest", id: "defaultEnabled") }
    var serverFlags: FileState<[String: Int]> { fileState(initial: [:], path: ServerRequestWork.directory, filename: "server-flags.json") }
}
