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
        // The new instance takes over the old one's registry itself (not a copy of its entries),
        // so nothing created concurrently through either instance can be lost.
        let new = Application.$promotedRegistry.withValue(old.registry) { customApplication.init() }
        if IsolatedApplication.isAnyLive, let isolated = TaskContext.current.isolatedApplication {
            isolated.application = new
        } else {
            shared = new
        }
        logDebug("promoted the application to \(String(reflecting: customApplication)), keeping its \(old.registry.count) entries")
        return customApplication
    }
}
