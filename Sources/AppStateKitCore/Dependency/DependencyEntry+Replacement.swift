/// Global replacement of a dependency (``Application/override(_:with:)``,
/// ``Application/promote(_:with:)``) without creating the instance it replaces: a missing entry
/// is created from the replacement itself, so the factory never runs. An override makes an entry
/// without an instance, a promotion one whose instance is the promoted value; an existing entry
/// is overridden or promoted in place.
extension DependencyEntry {
    /// Puts `value` on top of the overrides of the entry for `key` in `registry`, creating an
    /// entry without an instance if there is none; returns the entry and the override's token.
    static func overriding(_ key: EntryKey, in registry: Registry, with value: Value) -> (entry: DependencyEntry, token: UInt64) {
        var created = false
        let entry = registry.entry(for: key, as: DependencyEntry.self) { _ in
            created = true
            return DependencyEntry(key: key, firstOverride: value)
        }
        return (entry, created ? firstOverrideToken : entry.pushOverride(value))
    }

    /// Makes `value` the instance of the entry for `key` in `registry`, creating the entry with
    /// it if there is none; returns the entry.
    static func promoting(_ key: EntryKey, in registry: Registry, to value: Value) -> DependencyEntry {
        var created = false
        let entry = registry.entry(for: key, as: DependencyEntry.self) { _ in
            created = true
            return DependencyEntry(key: key, value: value)
        }
        if !created { entry.promote(to: value) }
        return entry
    }
}
