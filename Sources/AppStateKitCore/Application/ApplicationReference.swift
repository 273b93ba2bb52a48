/// An ``Application`` that crosses threads: what an isolation scope keeps as its application and
/// the shared instance keeps of the instances it replaced.
///
/// `Application` is deliberately not `Sendable`, so that subclasses (AppState's
/// `class MyApp: Application { static func helper() }`) need no annotations.
// @unchecked: an Application's only stored property is its registry, a constant that synchronises itself.
struct ApplicationReference: @unchecked Sendable {
    let application: Application
}
