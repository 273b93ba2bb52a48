// Checks that every ```swift block of the guides is compiled by the test suite.
//
//   swift .ci/tools/DocSnippets.swift check            every Swift block appears in a test file
//   swift .ci/tools/DocSnippets.swift manifests DIR    writes each Package.swift block as a package
//                                                     DIR/<n>/, with the guide's other blocks in it
//
// Documents: README.md, Documentation/*.md and the DocC catalogs' articles. A block is a
// Package.swift snippet when its first line is `// swift-tools-version…` (a whole manifest); those
// are resolved and built by .ci/steps/26-doc-manifests.sh. Every other ```swift block must appear
// in one Swift file under Tests/AppStateKitTests/, Tests/AppStateKitPostgresTests/ or
// Tests/AppStateKitConfigurationTests/ (by convention in Documentation/), compared
// line by line with whitespace runs collapsed:
// - its `import` lines must be somewhere in that file; a block that imports Testing or XCTest is
//   a whole test file as the guide shows it, so that file must import exactly what it imports
//   (a missing `import AppStateKit` then fails to compile);
// - each paragraph (lines between blank lines) must appear there as consecutive lines, so a
//   snippet's declarations can sit at file scope and its statements in a test function;
// - `…` in a snippet line stands for any text; a line ending in `{ … }` also matches the line
//   that opens a body written on the lines below (`func test() { … }`);
// - text in /* block comments */ and `#if false` regions of test files does not count;
// - a file that `@testable import`s a module does not count: snippets compile against what the
//   products make public, as in a reader's package.
// Readers have the public products and nothing else, so also:
// - README.md's blocks use no stand-in: no type or function declared in
//   Tests/AppStateKitTests/Documentation/DocumentationStandIns.swift (the reader's own code the
//   guides assume, such as `MockPayments`);
// - no stand-in shares its name with a public declaration of Sources/ (a stand-in must not stand
//   for something a product ships, or differ from it);
// - no block writes base64 into a `.json` file: a `fileState(…)` with a `.json` file name says
//   `isBase64Encoded: false` (AppState's default, kept for compatibility, is base64).
// Run from the repository root.
import Foundation

struct Block {
    let document: String
    let line: Int
    let lines: [String]
    var isManifest: Bool { lines.first?.hasPrefix("// swift-tools-version") == true }

    /// The code lines (imports excluded), split at blank lines, normalized.
    var paragraphs: [[String]] {
        var result: [[String]] = [[]]
        for line in lines {
            guard let clean = normalized(line) else {
                if !result[result.count - 1].isEmpty { result.append([]) }
                continue
            }
            if !isImport(clean) { result[result.count - 1].append(clean) }
        }
        return result.filter { !$0.isEmpty }
    }
}

func files(in directory: String, suffix: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
    return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) }.map { directory + "/" + $0 }.sorted()
}

func documents() -> [String] {
    var result = ["README.md"]
    result += files(in: "Documentation", suffix: ".md")
    result += files(in: "Sources", suffix: ".md").filter { $0.contains(".docc/") }
    return result.filter { FileManager.default.fileExists(atPath: $0) }
}

func blocks(of document: String) throws -> [Block] {
    let text = try String(contentsOfFile: document, encoding: .utf8)
    var result: [Block] = []
    var current: (start: Int, lines: [String])?
    for (index, line) in text.components(separatedBy: "\n").enumerated() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if var open = current {
            if trimmed == "```" {
                result.append(Block(document: document, line: open.start, lines: open.lines))
                current = nil
            } else {
                open.lines.append(line)
                current = open
            }
        } else if trimmed == "```swift" {
            current = (index + 1, [])
        }
    }
    if let open = current { throw Failure("\(document):\(open.start): error: unterminated ```swift block") }
    return result
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Collapses whitespace runs and trims; blank lines become nil.
func normalized(_ line: String) -> String? {
    let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
    return words.isEmpty ? nil : words.joined(separator: " ")
}

/// A test file's lines without block comments and `#if false` regions, normalized.
func compiledLines(of path: String) throws -> [String] {
    var text = try String(contentsOfFile: path, encoding: .utf8)
    while let start = text.range(of: "/*") {
        guard let end = text.range(of: "*/", range: start.upperBound..<text.endIndex) else { break }
        let removed = text[start.lowerBound..<end.upperBound].filter { $0 == "\n" }
        text.replaceSubrange(start.lowerBound..<end.upperBound, with: String(removed))
    }
    var lines: [String] = []
    var disabledDepth = 0
    for line in text.components(separatedBy: "\n") {
        guard let clean = normalized(line) else { continue }
        if disabledDepth > 0 {
            if clean.hasPrefix("#if") { disabledDepth += 1 }
            if clean == "#endif" { disabledDepth -= 1 }
            continue
        }
        if clean == "#if false" { disabledDepth = 1; continue }
        lines.append(clean)
    }
    return lines
}

func matches(_ pattern: String, _ line: String) -> Bool {
    guard pattern.contains("…") else { return pattern == line }
    // `func test() { … }`: the test may write the body on the lines that follow.
    if pattern.hasSuffix("{ … }"), line == pattern.dropLast(4).trimmingCharacters(in: .whitespaces) { return true }
    let parts = pattern.components(separatedBy: "…")
    guard line.hasPrefix(parts[0]), line.hasSuffix(parts[parts.count - 1]),
          line.count >= parts[0].count + parts[parts.count - 1].count else { return false }
    var rest = Substring(line.dropFirst(parts[0].count))
    for part in parts.dropFirst().dropLast() where !part.isEmpty {
        guard let found = rest.range(of: part) else { return false }
        rest = rest[found.upperBound...]
    }
    return true
}

func isImport(_ line: String) -> Bool { line.hasPrefix("import ") || line.hasPrefix("@testable import ") }

/// `import AppStateKit // was: …` → `AppStateKit`.
func moduleName(_ importLine: String) -> String {
    let words = importLine.split(separator: " ")
    guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { return importLine }
    return String(words[index + 1])
}

/// How far `code` matches in `lines` at best (to point at the first line that differs).
func longestMatch(of code: [String], in lines: [String]) -> (count: Int, found: Bool) {
    var best = 0
    for start in lines.indices {
        var count = 0
        while count < code.count, start + count < lines.count, matches(code[count], lines[start + count]) { count += 1 }
        if count == code.count { return (count, true) }
        best = max(best, count)
    }
    return (best, false)
}

let standInsFile = "Tests/AppStateKitTests/Documentation/DocumentationStandIns.swift"

/// The names `text` declares as types, type aliases or functions (`struct TestClock`, `func checkout(`).
func declaredNames(in text: String, publicOnly: Bool) -> Set<String> {
    let prefix = publicOnly ? #"public\s+(?:final\s+|static\s+|nonisolated\s+)*"# : #"(?:^|\s)(?:private\s+|fileprivate\s+|final\s+)*"#
    let declaration = try! NSRegularExpression(pattern: prefix + #"(?:struct|class|enum|protocol|actor|typealias|func)\s+([A-Za-z_][A-Za-z0-9_]*)"#, options: [.anchorsMatchLines])
    let source = text as NSString
    var names = Set<String>()
    for match in declaration.matches(in: text, range: NSRange(location: 0, length: source.length)) {
        // Stand-ins count at file scope only (not members of the types they declare).
        if !publicOnly {
            let lineStart = source.lineRange(for: match.range).location
            if source.character(at: lineStart) == 0x20 { continue }
        }
        names.insert(source.substring(with: match.range(at: 1)))
    }
    return names
}

/// Whether `line` uses `name` as a whole identifier.
func uses(_ line: String, _ name: String) -> Bool {
    line.range(of: #"(?<![A-Za-z0-9_.])"# + NSRegularExpression.escapedPattern(for: name) + #"(?![A-Za-z0-9_])"#, options: .regularExpression) != nil
}

/// The `fileState(…)` calls of `text` that name a `.json` file without `isBase64Encoded: false`.
func base64JSONFileStates(in text: String) -> [String] {
    var result: [String] = []
    var rest = Substring(text)
    while let start = rest.range(of: "fileState(") {
        var depth = 1
        var end = start.upperBound
        while end < rest.endIndex, depth > 0 {
            if rest[end] == "(" { depth += 1 }
            if rest[end] == ")" { depth -= 1 }
            end = rest.index(after: end)
        }
        let call = String(rest[start.lowerBound..<end])
        if call.contains(".json\""), !call.contains("isBase64Encoded: false") {
            result.append(call.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
        }
        rest = rest[end...]
    }
    return result
}

/// Rules about what the snippets may use (see the header): one error line each.
func readerRules() throws -> [String] {
    var errors: [String] = []
    let standIns = FileManager.default.fileExists(atPath: standInsFile)
        ? declaredNames(in: try String(contentsOfFile: standInsFile, encoding: .utf8), publicOnly: false) : []
    var shipped = Set<String>()
    for source in files(in: "Sources", suffix: ".swift") {
        shipped.formUnion(declaredNames(in: try String(contentsOfFile: source, encoding: .utf8), publicOnly: true))
    }
    for name in standIns.intersection(shipped).sorted() {
        errors.append("\(standInsFile): error: the stand-in `\(name)` has the name of a public declaration in Sources/: snippets must use the shipped one")
    }
    for document in documents() {
        for block in try blocks(of: document) where !block.isManifest {
            for call in base64JSONFileStates(in: block.lines.joined(separator: "\n")) {
                errors.append("\(document):\(block.line): error: `\(call)` writes base64 into a .json file (AppState's default); pass `isBase64Encoded: false`")
            }
            guard document == "README.md" else { continue }
            let ownNames = declaredNames(in: block.lines.joined(separator: "\n"), publicOnly: false)
                .union(declaredNames(in: block.lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n"), publicOnly: false))
            for (offset, line) in block.lines.enumerated() {
                for name in standIns.subtracting(ownNames).sorted() where uses(line, name) {
                    errors.append("README.md:\(block.line + offset + 1): error: `\(name)` is a stand-in (\(standInsFile)), not part of the public products: a reader who types this in gets \"cannot find '\(name)' in scope\"")
                }
            }
        }
    }
    return errors
}

func check() throws -> Int {
    let testFiles = files(in: "Tests/AppStateKitTests", suffix: ".swift") + files(in: "Tests/AppStateKitPostgresTests", suffix: ".swift")
        + files(in: "Tests/AppStateKitConfigurationTests", suffix: ".swift")
    let compiled = try testFiles.map { ($0, try compiledLines(of: $0)) }.filter { !$0.1.contains { $0.hasPrefix("@testable import ") } }
    let ruleErrors = try readerRules()
    ruleErrors.forEach { print($0) }
    var failures = ruleErrors.count
    var checked = 0
    for document in documents() {
        let documentBlocks = try blocks(of: document)
        // The reader's own modules: the targets the guide's Package.swift declares. Their imports
        // (`@testable import MyTool`) can't be compiled here; 26-doc-manifests.sh compiles those
        // blocks in that package instead.
        let readerModules = Set(documentBlocks.filter(\.isManifest).flatMap { targets(in: $0.lines.joined(separator: "\n")).map(\.name) })
        for block in documentBlocks where !block.isManifest {
            checked += 1
            let lines = block.lines.compactMap(normalized).filter { !(isImport($0) && readerModules.contains(moduleName($0))) }
            if lines.contains(where: { $0.hasPrefix(".package(") || $0.hasPrefix(".testTarget(") || $0 == "import PackageDescription" }) {
                print("\(document):\(block.line): error: a Package.swift snippet must be a whole manifest, starting with `// swift-tools-version:…`")
                failures += 1
                continue
            }
            let imports = lines.filter(isImport)
            let paragraphs = block.paragraphs
            var closest: (file: String, paragraph: Int, line: Int)?
            var found = false
            let isTestFile = imports.contains { $0.hasPrefix("import Testing") || $0.hasPrefix("import XCTest") }
            for (file, testLines) in compiled where imports.allSatisfy(testLines.contains) {
                if isTestFile, Set(testLines.filter(isImport).map(moduleName)) != Set(imports.map(moduleName)) { continue }
                var missing: (paragraph: Int, line: Int)?
                for (index, paragraph) in paragraphs.enumerated() {
                    let match = longestMatch(of: paragraph, in: testLines)
                    if !match.found { missing = (index, match.count); break }
                }
                guard let missing else { found = true; break }
                if closest == nil || (missing.paragraph, missing.line) > (closest!.paragraph, closest!.line) {
                    closest = (file, missing.paragraph, missing.line)
                }
            }
            if !found {
                failures += 1
                var message = "\(document):\(block.line): error: this ```swift block is not compiled by any test: paste it verbatim into a test under Tests/AppStateKitTests/Documentation/ (imports at the top, each paragraph as consecutive lines)"
                if isTestFile { message += ", in a file that imports exactly what the block imports" }
                if let closest, closest.paragraph > 0 || closest.line > 0 {
                    message += "\n    closest: \(closest.file), which lacks the snippet's line \"\(paragraphs[closest.paragraph][closest.line])\""
                }
                print(message)
            }
        }
    }
    print("doc snippets: \(checked - (failures - ruleErrors.count)) of \(checked) Swift blocks are compiled by tests; \(ruleErrors.count) use what readers lack")
    return failures
}

/// Writes each Package.swift snippet as a package DIR/NNN/ with a stub source file per target that
/// imports the products the target names (a test target's stub also runs one test), and the
/// snippet's place in DIR/NNN/origin.
func writeManifests(to directory: String) throws -> Int {
    var count = 0
    for document in documents() {
        for block in try blocks(of: document) where block.isManifest {
            count += 1
            let package = "\(directory)/" + String(format: "%03d", count)
            try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
            let manifest = block.lines.joined(separator: "\n") + "\n"
            try manifest.write(toFile: "\(package)/Package.swift", atomically: true, encoding: .utf8)
            try "\(document):\(block.line)".write(toFile: "\(package)/origin", atomically: true, encoding: .utf8)
            for target in targets(in: manifest) {
                let folder = "\(package)/\(target.isTest ? "Tests" : "Sources")/\(target.name)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                var source = target.products.map { "import \($0)\n" }.joined()
                if target.isTest {
                    source += "import Testing\n\n@Test func linksAndRuns() {\n"
                    if target.products.contains("AppStateKit") { source += "    #expect(Application.description == \"Application (no entries)\")\n" }
                    source += "}\n"
                } else if target.isExecutable {
                    source += "\nprint(\"\(target.name)\")\n"
                }
                try source.write(toFile: "\(folder)/\(target.isExecutable ? "main" : target.name).swift", atomically: true, encoding: .utf8)
            }
            try placeSnippets(of: document, in: package, targets: targets(in: manifest))
        }
    }
    return count
}

/// Puts the guide's other Swift blocks where a reader of the guide puts them, in the package its
/// Package.swift sets up: a block that imports Testing or XCTest is a file of the first test
/// target; the others, together, are the first executable target's main.swift (imports first).
func placeSnippets(of document: String, in package: String, targets: [(name: String, isTest: Bool, isExecutable: Bool, products: [String])]) throws {
    let snippets = try blocks(of: document).filter { !$0.isManifest }
    let isTestBlock = { (block: Block) in block.lines.contains { $0.hasPrefix("import Testing") || $0.hasPrefix("import XCTest") } }
    if let test = targets.first(where: \.isTest) {
        for (index, block) in snippets.filter(isTestBlock).enumerated() {
            try (block.lines.joined(separator: "\n") + "\n").write(
                toFile: "\(package)/Tests/\(test.name)/GuideSnippet\(index + 1).swift", atomically: true, encoding: .utf8)
        }
    }
    if let executable = targets.first(where: \.isExecutable) {
        let code = snippets.filter { !isTestBlock($0) }
        var imports = executable.products.map { "import \($0)" }
        var body: [String] = []
        for block in code {
            for line in block.lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if isImport(trimmed) { if !imports.contains(trimmed) { imports.append(trimmed) } } else { body.append(line) }
            }
            body.append("")
        }
        guard !code.isEmpty else { return }
        try ((imports + [""] + body).joined(separator: "\n")).write(
            toFile: "\(package)/Sources/\(executable.name)/main.swift", atomically: true, encoding: .utf8)
    }
}

/// The targets a manifest declares, with the library products each one names.
func targets(in manifest: String) -> [(name: String, isTest: Bool, isExecutable: Bool, products: [String])] {
    let declaration = try! NSRegularExpression(pattern: #"\.(executableTarget|testTarget|target)\(\s*name:\s*"([^"]+)""#)
    let product = try! NSRegularExpression(pattern: #"\.product\(\s*name:\s*"([^"]+)""#)
    let text = manifest as NSString
    let found = declaration.matches(in: manifest, range: NSRange(location: 0, length: text.length))
    return found.enumerated().map { index, match in
        let end = index + 1 < found.count ? found[index + 1].range.location : text.length
        let body = text.substring(with: NSRange(location: match.range.location, length: end - match.range.location))
        var products = product.matches(in: body, range: NSRange(location: 0, length: (body as NSString).length)).map {
            (body as NSString).substring(with: $0.range(at: 1))
        }
        if products.contains("AppStateKitTesting"), !products.contains("AppStateKit") { products.insert("AppStateKit", at: 0) }
        let kind = text.substring(with: match.range(at: 1))
        return (text.substring(with: match.range(at: 2)), kind == "testTarget", kind == "executableTarget", products)
    }
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case "check":
        exit(try check() == 0 ? 0 : 1)
    case "manifests" where arguments.count == 2:
        print("doc snippets: \(try writeManifests(to: arguments[arguments.startIndex + 1])) Package.swift blocks")
    default:
        print("usage: swift .ci/tools/DocSnippets.swift check | manifests DIR")
        exit(2)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
