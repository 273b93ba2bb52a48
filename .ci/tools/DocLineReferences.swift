// Keeps the source references in Documentation/Internals.md true. Each reference is written
//
//     `AppStateKitCore/Registry/Registry.swift:77`<!-- func dependencyValue< -->
//
// a path under Sources (module, then folder), a line number, and (in an HTML comment, invisible when
// rendered) a regular expression for the line it names; `⏎` separates expressions that must
// match consecutive lines. The reference is right when the number is the first line where the
// expression matches. Fails listing every wrong or unresolvable reference; with --fix, rewrites
// the numbers instead (an expression that matches nowhere still fails).
//
// Usage: swift .ci/tools/DocLineReferences.swift [--fix]
import Foundation

let fix = CommandLine.arguments.contains("--fix")
let document = "Documentation/Internals.md"
let root = "Sources/"
let reference = try Regex("`([^`]+\\.swift):([0-9]+)`<!-- (.+?) -->")

/// Each source file's lines, read once however many references name it.
var sourceLines: [String: [String]] = [:]

/// The first line (1-based) of `path` where `patterns` match consecutive lines, or nil.
func firstLine(of path: String, matching patterns: [String]) throws -> Int? {
    let lines = try sourceLines[path] ?? String(contentsOfFile: root + path, encoding: .utf8).components(separatedBy: "\n")
    sourceLines[path] = lines
    let expressions = try patterns.map { try Regex($0) }
    for start in lines.indices {
        let matches = expressions.indices.allSatisfy { offset in
            start + offset < lines.count && lines[start + offset].contains(expressions[offset])
        }
        if matches { return start + 1 }
    }
    return nil
}

let text = try String(contentsOfFile: document, encoding: .utf8)
var output = ""
var problems: [String] = []
var checked = 0
var rest = text[...]
while let match = rest.firstMatch(of: reference) {
    output += rest[..<match.range.lowerBound]
    let path = String(match.output[1].substring!)
    let stated = Int(match.output[2].substring!)!
    let pattern = String(match.output[3].substring!)
    checked += 1
    guard let actual = try firstLine(of: path, matching: pattern.components(separatedBy: "⏎")) else {
        problems.append("\(path): nothing matches \(pattern)")
        output += rest[match.range]
        rest = rest[match.range.upperBound...]
        continue
    }
    if actual != stated && !fix { problems.append("\(path):\(stated) should be :\(actual) (\(pattern))") }
    output += "`\(path):\(actual)`<!-- \(pattern) -->"
    rest = rest[match.range.upperBound...]
}
output += rest

if !problems.isEmpty {
    FileHandle.standardError.write(Data((["error: \(document) names source lines that moved or vanished:"] + problems).joined(separator: "\n  ").utf8 + Data("\nrun: swift .ci/tools/DocLineReferences.swift --fix\n".utf8)))
    exit(1)
}
if fix && output != text { try output.write(toFile: document, atomically: true, encoding: .utf8) }
print("\(document): \(checked) source references point at their lines\(fix && output != text ? " (rewritten)" : "")")
