@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import Foundation
import Testing

@Suite("CallerBoundTransform", .isolatedApplication)
struct CallerBoundTransformTests {
    @Test("the lent transform runs until revoked; afterwards a call throws CancellationError and runs nothing")
    func revokeEndsTheLoan() throws {
        var runs = 0
        let record = SyncRecord(key: "k", value: Data("1".utf8), version: 1)
        let outcomes = withoutActuallyEscaping({ (record: SyncRecord?) throws -> Data? in
            runs += 1
            return record?.value
        }) { transform in
            let lent = CallerBoundTransform(transform)
            let before = Result { try lent(record) }
            lent.revoke()
            let after = Result { try lent(record) }
            return (before, after)
        }
        #expect(try outcomes.0.get() == Data("1".utf8))
        #expect(throws: CancellationError.self) { try outcomes.1.get() }
        #expect(runs == 1)
    }
}
