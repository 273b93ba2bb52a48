extension Application {
    /// The application that serves the calling task: the isolated one of an enclosing
    /// isolation scope if there is one, otherwise the process-wide shared instance.
    @inlinable
    static var current: Application {
        if IsolatedApplication.isAnyLive, let isolated = TaskContext.currentIsolatedApplication {
            return isolated
        }
        return shared
    }

    /// Runs `body` with the application serving the calling task, without retaining the shared
    /// instance: on the read path, a retain/release pair on the one shared object would make
    /// every thread write the same cache line.
    @inlinable @inline(__always)
    static func withCurrent<Result>(_ body: (Application) -> Result) -> Result {
        if IsolatedApplication.isAnyLive, let isolated = TaskContext.currentIsolatedApplication {
            return body(isolated)
        }
        return SharedApplication.withShared(body)
    }
}
