// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathProtocol
import SystemCalls

/// `pathctl hold CRITERIA`: runs exactly while the path meets the criteria, for the unit
/// template pathd-path@.service (Type=notify): exit 1 at once when they do not hold,
/// READY=1 to systemd when they do (`$NOTIFY_SOCKET`), then exit `networkChanged` (75)
/// the moment they stop holding, so that units bound to it (`BindsTo=`) stop with it. A
/// restart of pathd is ridden out (`ReconnectingSubscription`): the new daemon's first
/// path decides as any other.
///
/// The criteria come as options or as words, each an option of this command without its
/// dashes and with `:` before its value (`not-expensive`, `prohibit-type:cellular`):
/// what a unit's instance name can hold, since unit names have no `=` or spaces.
struct HoldVerb: Verb, Equatable {
    /// The options a criterion word may name: the criteria and the requirements.
    static let criteriaOptions = CriteriaOptions.options + PathRequirements.options.map(\.option)
    /// Every criterion word's form: `not-expensive`, `prohibit-type:TYPE`.
    static let criterionForms = criteriaOptions.map { option in
        String(option.name.dropFirst(2)) + (option.spec.valueName.map { ":\($0)" } ?? "")
    }
    static let words = CommandOperands(
        "CRITERION",
        description: "an option of hold without its dashes, a value after \":\" (not-expensive, "
            + "prohibit-type:cellular)",
        completion: .words(criteriaOptions.map { String($0.name.dropFirst(2)) + ($0.spec.takesValue ? ":" : "") }),
        optional: true)
    static let command = CommandSpec<any Verb.Type>(
        "hold", summary: "stay while the path meets the criteria (for systemd units)",
        options: criteriaOptions, operands: words, action: Self.self)

    var criteria: Criteria
    var requirements: PathRequirements

    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError) {
        let specs = Self.criteriaOptions.map(\.spec)
        let words = try OptionParser(specs).parse(try Self.arguments(forCriteria: operands))
        let line = try line.adding(words, options: specs)
        criteria = try CriteriaOptions.criteria(in: line)
        requirements = PathRequirements(given: line)
    }

    /// The option arguments criterion words stand for: `not-expensive` is
    /// `--not-expensive`, `prohibit-type:cellular` is `--prohibit-type cellular`.
    static func arguments(forCriteria words: [String]) throws(UsageError) -> [String] {
        var arguments: [String] = []
        for word in words {
            let parts = word.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = "--" + parts[0]
            guard let option = criteriaOptions.first(where: { $0.name == name }) else {
                throw UsageError("hold: \"\(word)\" is no criterion: one of \(criterionForms.joined(separator: ", "))")
            }
            switch (option.spec.valueName, parts.count > 1 ? String(parts[1]) : nil) {
            case (_?, let value?): arguments += [name, value]
            case (nil, nil): arguments.append(name)
            case (let valueName?, nil): throw UsageError("hold: \"\(word)\" needs a value: \(parts[0]):\(valueName)")
            case (nil, _?): throw UsageError("hold: \"\(word)\" takes no value")
            }
        }
        return arguments
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        let subscription = ReconnectingSubscription(socketPath: global.socketPath,
                                                    request: Request(.subscribe(.path(criteria))))
        var holding = false
        var notifyError: Errno?
        let status = try subscription.runToEnd { message, _, _ in
            guard case .path(let update, _) = message else { return nil }
            if let why = requirements.unmet(by: update) {
                // News, not an error: the unit ends (or does not start) as it should.
                writeErrorLine("pathctl: \(why)", level: .notice)
                return holding ? .networkChanged : .notSatisfied
            }
            let status = "STATUS=the criteria hold: \(PathFormatting.headline(update))"
            do throws(Errno) {
                try ServiceNotification.send(holding ? status : "READY=1\n" + status)
            } catch {
                notifyError = error
                return .notSatisfied
            }
            holding = true
            return nil
        }
        if let notifyError {
            writeErrorLine("pathctl: cannot notify the service manager at $\(ServiceNotification.variable): "
                + "\(notifyError)")
        }
        return status
    }
}
