/// The last generic argument of a slice or constant wrapper built from `Sendable` key paths.
///
/// Every key-path literal to a member that isn't isolated to an actor is `Sendable`, so this is
/// what `@Slice(\.settings, \.theme)` infers, and such a wrapper is `Sendable`: a `Sendable`
/// struct, an actor or a task may hold it.
public enum SendableKeyPaths: Sendable {}

/// The last generic argument of a slice or constant wrapper built from a key path that isn't
/// `Sendable`: one to a member of an actor-isolated type, such as a `@MainActor` view model.
///
/// ```swift
/// @MainActor @Observable final class ProfileModel { var username = "" }
///
/// @MainActor struct ProfileView {
///     @DependencySlice(\.profileModel, \.username) var username   // DependencySlice<…, NonSendableKeyPaths>
/// }
/// ```
///
/// Such a wrapper is not `Sendable`: the compiler keeps it in the isolation domain that made it
/// (the main actor above), where reading the member is safe.
public enum NonSendableKeyPaths {}
