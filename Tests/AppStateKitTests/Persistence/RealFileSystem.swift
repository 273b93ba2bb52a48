import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

extension Trait where Self == OverridingTrait<any FileManaging> {
    /// Files go through the real file system rather than the isolated application's sandbox: for
    /// tests that check the bytes on disk, each in a temporary directory of its own.
    static var realFileSystem: Self {
        .overriding(\.fileManager, with: FileManager.default as any FileManaging)
    }
}
