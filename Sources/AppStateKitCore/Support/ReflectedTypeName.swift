import Foundation

/// `String(reflecting: type)` with AppStateKit's own modules spelled `AppStateKit`: the engine
/// is split into modules (Documentation/ModuleSplit.md), but descriptions and diagnostics keep
/// naming its types as the module users import (`AppStateKit.ApplicationLogger`).
package func reflectedTypeName(_ type: Any.Type) -> String {
    var name = String(reflecting: type)
    guard name.contains("AppStateKit") else { return name }
    for module in ["AppStateKitCore.", "AppStateKitPersistence.", "AppStateKitSync.", "AppStateKitSecrets."] {
        var result = ""
        var rest = name[...]
        while let range = rest.range(of: module) {
            let before = rest[..<range.lowerBound]
            result += before
            // Only a whole module name: `MyAppStateKitCore.` is a user's module.
            if let previous = before.last ?? result.last, previous.isLetter || previous.isNumber || previous == "_" {
                result += rest[range]
            } else {
                result += "AppStateKit."
            }
            rest = rest[range.upperBound...]
        }
        name = result + rest
    }
    return name
}
