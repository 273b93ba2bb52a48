// The product users import: the engine's modules, re-exported, so `import AppStateKit` (and
// AppState code written against it) sees every public declaration as before the split
// (Documentation/ModuleSplit.md).
@_exported import AppStateKitCore
@_exported import AppStateKitPersistence
@_exported import AppStateKitSecrets
@_exported import AppStateKitSync
