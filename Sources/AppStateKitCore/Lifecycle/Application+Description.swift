extension Application {
    /// Every live entry of the current application, one per line, sorted:
    /// `Kind<ValueType> key = value`.
    ///
    /// ```
    /// Dependency<AppStateKit.ApplicationLogger> AppStateKit.logger = instance of AppStateKit.ApplicationLogger
    /// FileState<Swift.Int> /home/me/.local/share/tool/count.json = 3
    /// State<Swift.Int> App.counter = 3
    /// StoredState<Swift.Int> Server.port (Server/port in /home/me/.config/tool/defaults.json) = 8080
    /// ```
    ///
    /// A file state shows the path of the file actually read and written — inside the temporary
    /// directory for an isolated application; a stored state its storage key and its store
    /// (the file of a ``FileKeyValueStore``).
    ///
    /// A dependency shows the type of its instance, never the instance itself: a client or a
    /// configuration struct may hold a password (`PostgresClient.Configuration`), and this text
    /// ends up in logs. A secure state shows `<redacted>`. States, stored states, file states and
    /// sync states show their values.
    public static var description: String {
        let lines = current.registry.allEntries.map { entry in
            let name = (entry as? any DescribesLocation)?.locationDescription ?? entry.loggedName
            let value = (entry as? any DescribesValueByType)?.valueTypeDescription ?? entry.valueDescription
            return "\(entry.kindName)<\(entry.valueTypeName)> \(name) = \(value)"
        }
        guard !lines.isEmpty else { return "Application (no entries)" }
        return lines.sorted().joined(separator: "\n")
    }
}

/// An entry whose line in ``Application/description`` shows its value's type instead of its value,
/// which may hold a secret (a dependency: a client, a configuration with a password).
package protocol DescribesValueByType {
    /// Replaces the value in the entry's line.
    var valueTypeDescription: String { get }
}

extension DependencyEntry: DescribesValueByType {
    /// `instance of <dynamic type>`, or `(not created yet)`.
    package var valueTypeDescription: String {
        currentValue().map { "instance of \(reflectedTypeName(type(of: $0)))" } ?? "(not created yet)"
    }
}

/// An entry whose line in ``Application/description`` names where its value lives beside its key
/// (a file state's ``RegistryEntry/loggedName`` is its file).
package protocol DescribesLocation {
    /// Replaces the key in the entry's line.
    var locationDescription: String { get }
}
