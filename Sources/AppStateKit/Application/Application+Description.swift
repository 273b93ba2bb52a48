extension Application {
    /// Every live entry of the current application, one per line, sorted:
    /// `Kind<ValueType> key = value`.
    ///
    /// ```
    /// Dependency<AppStateKit.ApplicationLogger> AppStateKit.logger = AppStateKit.ApplicationLogger
    /// State<Swift.Int> App.counter = 3
    /// ```
    public static var description: String {
        let lines = current.registry.allEntries.map { entry in
            "\(entry.kindName)<\(entry.valueTypeName)> \(entry.key.readable) = \(entry.valueDescription)"
        }
        guard !lines.isEmpty else { return "Application (no entries)" }
        return lines.sorted().joined(separator: "\n")
    }
}
