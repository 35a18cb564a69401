import CommandLineOptions
@testable import pathctl

/// The options of a pathctl command line that names a command; throws its usage error.
func options(_ arguments: String...) throws -> PathctlOptions {
    guard case .run(let options) = try PathctlCommandLine.parse(arguments) else {
        throw UsageError("not a command: \(arguments)")
    }
    return options
}

/// The usage error a pathctl command line gets, or nil when it parses.
func usageError(_ arguments: String...) -> String? {
    do {
        _ = try PathctlCommandLine.parse(arguments)
        return nil
    } catch {
        return error.description
    }
}
