import ArgumentParser
import Foundation

/// `--json`, shared by every command: one JSON object for a result, one object per line for `watch`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of a table for people (one object per line for watch).")
    var json = false
}
