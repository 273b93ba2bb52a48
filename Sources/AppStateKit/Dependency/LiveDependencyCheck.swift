/// The seam behind AppStateKitTesting's `.noLiveDependencies` trait: a task-local handler told
/// each time a dependency's own factory creates its instance in the calling task.
///
/// A dependency the task overrides never runs its factory, so inside an isolated application a
/// call means the code under test reached the live dependency. AppStateKit's own dependencies,
/// which an isolated application already keeps private, are not reported.
package enum LiveDependencyCheck {
    /// Receives the created dependency's description (`Dependency<any APIClient> App.api`).
    @TaskLocal package static var handler: (@Sendable (String) -> Void)?

    /// Called by `Application.announceCreation(of:)` for every entry it is told about.
    static func noteCreation(of entry: RegistryEntry) {
        guard let handler, entry.kindName == "Dependency", entry.key.name.scope.name != "AppStateKit"
        else { return }
        handler("\(entry.kindName)<\(entry.valueTypeName)> \(entry.loggedName)")
    }
}
