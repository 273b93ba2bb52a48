import AppStateKit
import Foundation

// A loop of one operation, for instruction counts under valgrind (see Scripts/instructions.sh):
// counts don't depend on how busy the machine is, so they compare code changes exactly.
//
// Usage: appstatekit-profile <operation> <count>, or --list for the operations.

final class ProfiledService: Sendable {}

extension Application {
    var profiledService: Dependency<ProfiledService> { dependency(ProfiledService()) }
    var profiledCounter: State<Int> { state(initial: 0) }
    var profiledNamedCounter: State<Int> { state(initial: 0, feature: "Profile", id: "named") }
    var profiledSyncCounter: SyncState<Int> { syncState(initial: 0, feature: "Profile", id: "sync") }
}

struct ProfiledHolder: Sendable {
    @AppDependency(\.profiledService) var service
}

@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

@inline(never)
func makeHolder() -> ProfiledHolder {
    ProfiledHolder()
}

@inline(never)
func read(_ holder: ProfiledHolder) -> ProfiledService {
    holder.service
}

let operations: [String: (Int) -> Void] = [
    "dependency": { count in
        for _ in 0..<count { consume(Application.dependency(\.profiledService)) }
    },
    "wrapper": { count in
        let holder = makeHolder()
        for _ in 0..<count { consume(read(holder)) }
    },
    "state-read": { count in
        for _ in 0..<count { consume(Application.state(\.profiledCounter).value) }
    },
    "named-state-read": { count in
        for _ in 0..<count { consume(Application.state(\.profiledNamedCounter).value) }
    },
    "sync-read": { count in
        Application.promote(\.syncStore, with: InMemorySyncStore())
        for _ in 0..<count { consume(Application.syncState(\.profiledSyncCounter).value) }
    },
    "state-write": { count in
        for index in 0..<count {
            var counter = Application.state(\.profiledCounter)
            counter.value = index
        }
    },
    "update": { count in
        for _ in 0..<count { Application.update(\.profiledCounter) { $0 += 1 } }
    },
    "scoped-override": { count in
        let mock = ProfiledService()
        for _ in 0..<count {
            Application.withOverrides { $0.override(\.profiledService, with: mock) } operation: {
                consume(Application.dependency(\.profiledService))
            }
        }
    },
    "create": { count in
        let application = Application()
        for index in 0..<count { consume(application.state(initial: 0, feature: "Profile", id: "entry-\(index)").value) }
    },
]

let arguments = CommandLine.arguments.dropFirst()
if arguments == ["--list"] {
    print(operations.keys.sorted().joined(separator: "\n"))
    exit(0)
}
guard arguments.count == 2, let operation = operations[arguments.first!], let count = Int(arguments.last!), count > 0 else {
    let names = operations.keys.sorted().joined(separator: "|")
    FileHandle.standardError.write(Data("usage: appstatekit-profile <\(names)> <count>\n".utf8))
    exit(2)
}
operation(count)
