// The snippet of Documentation/Persistence.md's "Durable writes from async code", verbatim, run.
// (`todoList` is declared by PersistenceUpdateSnippets.swift, as the guide declares it earlier.)
import AppStateKit
import Foundation
import AppStateKitTesting
import Testing

extension Application {
    var lastOrderID: StoredState<String?> { storedState(feature: "Shop", id: "lastOrderID") }
}

func placeOrder(_ id: String) async throws {
    try await Application.storedState(\.lastOrderID).writeDurably(id)   // on disk when this returns
    try await Application.fileState(\.todoList).updateDurably { $0.append("Ship \(id)") }
}

@Suite("Persistence.md: durable writes from async code", .isolatedApplication)
struct PersistenceAsyncWritesSnippets {
    @Test("placeOrder writes both values before it returns")
    func placesAnOrder() async throws {
        try await placeOrder("A-17")
        #expect(try Application.storedState(\.lastOrderID).read() == "A-17")
        #expect(try Application.fileState(\.todoList).read() == ["Ship A-17"])
    }
}
