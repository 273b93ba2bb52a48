extension Application {
    /// Replaces the application with an instance of `customApplication`, carrying every existing
    /// entry over, and returns the type so its static members can be chained.
    ///
    /// ```swift
    /// final class MyApp: Application {
    ///     static func bootstrap() { load(dependency: \.database) }
    /// }
    /// Application.promote(to: MyApp.self).bootstrap()
    /// Application.promote(to: Application.self)   // back to the base class, entries kept
    /// ```
    ///
    /// Inside an isolation scope only that scope's application is replaced.
    @discardableResult
    public static func promote<Custom: Application>(to customApplication: Custom.Type) -> Custom.Type {
        let old = current
        let new = customApplication.init()
        new.registry.adoptEntries(from: old.registry)
        if ScopeContext.isAnyLive, let isolated = ScopeContext.current?.isolatedApplication {
            isolated.application = new
        } else {
            shared = new
        }
        // Entries created through the old instance while the new one was being published.
        new.registry.adoptEntries(from: old.registry)
        return customApplication
    }
}
