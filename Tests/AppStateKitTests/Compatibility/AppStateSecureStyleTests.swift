// AppState's SecureState documentation (documentation/usage-securestate.md), its Keychain's
// doc comment and its SecureStateTests, with only the import changed (`import AppState` →
// `import AppStateKit`) and SwiftUI's Picker left out. Run in an isolated application, whose
// keychain keeps its files in the application's sandbox.
import Foundation
import Testing
import AppStateKit
import AppStateKitTesting

// usage-securestate.md: "Creating a SecureState".
extension Application {
    var userToken: SecureState {
        secureState(id: "userToken")
    }
}

fileprivate struct TokenHolder {
    @SecureState(\.userToken) var userToken: String?

    // "Storing a Value", "Accessing a Value", "Handling Absence of Values".
    func storeAndAccess() {
        userToken = "my_secret_token"

        if let token = userToken {
            print("User token: \(token)")
        } else {
            print("No token found.")
        }

        if userToken == nil {
            print("Token not set.")
        }
    }
}

/// The snippets' `print`, as a test diagnostic: a green run prints only the runner's lines.
fileprivate func print(_ line: String) {
    diagnostic(line)
}

// SecureStateTests.swift.
fileprivate extension Application {
    var secureValue: SecureState {
        secureState(id: "secureState")
    }
}

fileprivate struct ExampleStoredValue {
    @SecureState(\.secureValue) var token: String?
}

fileprivate class ExampleStoringViewModel {
    @SecureState(\.secureValue) var token: String?

    func testPropertyWrapper() {
        token = "QWERTY"
    }
}

/// The Keychain doc comment's example, compiled: run, it would write the real store in the
/// user's home, so the test runs the same calls on the isolated application's keychain.
private func keychainDocExample() throws -> String {
    let keychain = Keychain()

    keychain.set(value: "password", forKey: "user_password")

    let password = try keychain.resolve("user_password")
    return password
}

@Suite("AppState's SecureState code, with only the import changed", .isolatedApplication)
struct AppStateSecureStyleTests {
    @Test("usage-securestate.md's snippets")
    func documentationSnippets() {
        let holder = TokenHolder()
        #expect(holder.userToken == nil)
        holder.storeAndAccess()
        #expect(holder.userToken == "my_secret_token")
        #expect(Application.secureState(\.userToken).value == "my_secret_token")
    }

    @Test("SecureStateTests.testStoredState")
    func storedState() {
        #expect(Application.secureState(\.secureValue).value == nil)
        let secureValue = ExampleStoredValue()
        #expect(secureValue.token == nil)
        secureValue.token = "QWERTY"
        #expect(secureValue.token == "QWERTY")
        secureValue.token = UUID().uuidString
        #expect(secureValue.token != "QWERTY")
        Application.logger.debug("StoredStateTests \(Application.description)")
        secureValue.token = nil
        #expect(Application.secureState(\.secureValue).value == nil)
    }

    @Test("SecureStateTests.testStoringViewModel")
    func storingViewModel() {
        #expect(Application.secureState(\.secureValue).value == nil)
        let viewModel = ExampleStoringViewModel()
        #expect(viewModel.token == nil)
        viewModel.testPropertyWrapper()
        #expect(viewModel.token == "QWERTY")
        Application.reset(secureState: \.secureValue)
        #expect(viewModel.token == nil)
    }

    @Test("the Keychain surface: get, resolve, set, remove, contains, require, values")
    func keychainSurface() throws {
        _ = keychainDocExample  // Compiled above; not run (it would use the real store).
        let keychain = Application.dependency(\.keychain)
        keychain.set(value: "password", forKey: "user_password")
        let password = try keychain.resolve("user_password")
        #expect(password == "password")
        #expect(keychain.get("user_password", as: String.self) == "password")
        #expect(keychain.get("user_password", as: Int.self) == nil)
        #expect(try keychain.resolve("user_password", as: String.self) == "password")
        #expect(keychain.contains("user_password"))
        #expect(try keychain.require("user_password") === keychain)
        #expect(throws: SecureStateError.self) { try keychain.require(keys: ["user_password", "other"]) }
        #expect(keychain.values(ofType: String.self) == ["user_password": "password"])
        #expect(keychain.values() == ["user_password": "password"])
        keychain.remove("user_password")
        #expect(!keychain.contains("user_password"))
        #expect(throws: SecureStateError.self) { try keychain.resolve("user_password") }
    }
}
