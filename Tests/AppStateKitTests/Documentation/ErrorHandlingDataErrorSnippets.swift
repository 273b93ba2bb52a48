// The InMemoryFileSystem snippet of Documentation/ErrorHandling.md's data-error section,
// verbatim, compiled and run.
import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

@Test(.isolatedApplication)
func aFullDiskLeavesTheSettingsAsTheyWere() throws {
    let files = InMemoryFileSystem()
    let store = FileKeyValueStore(path: "/srv/app/defaults.json", fileSystem: files)
    try store.writeObject(8080, forKey: "port")
    files.fail(.write, at: "/srv/app", with: ENOSPC)
    #expect(throws: PersistenceError.self) { try store.writeObject(9090, forKey: "port") }
    #expect(store.object(forKey: "port") as? Int == 8080)
}
