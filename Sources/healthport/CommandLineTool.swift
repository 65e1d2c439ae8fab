import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// A subcommand: its help text and what it does.
protocol Command {
  static var name: String { get }
  static var summary: String { get }
  static var options: [OptionSpec] { get }
  /// Help after OVERVIEW: the USAGE, ARGUMENTS and EXAMPLES parts.
  static var usage: String { get }
  /// The words the first argument is one of, before INPUT (`chart`'s CHART); empty when the
  /// arguments are inputs only.
  static var firstArgumentChoices: [String] { get }
  static func run(_ arguments: ParsedArguments) throws
}

extension Command {
  static var firstArgumentChoices: [String] { [] }

  static var descriptor: CommandDescriptor {
    CommandDescriptor(
      name: name, summary: summary, options: options, usage: usage, firstArgumentChoices: firstArgumentChoices,
      run: run)
  }
}

/// A subcommand as the dispatcher sees it.
struct CommandDescriptor {
  let name: String
  let summary: String
  let options: [OptionSpec]
  let usage: String
  let firstArgumentChoices: [String]
  let run: (ParsedArguments) throws -> Void

  /// Its options as help lists them: its own, then `-h, --help`.
  var helpOptions: [OptionSpec] { options + [CommandLineTool.helpOption] }

  var help: String {
    "OVERVIEW: \(summary)\n\n\(usage)\n\nOPTIONS:\n" + helpOptions.map(\.helpLine).joined()
  }
}

/// Entry point: dispatches to subcommands, prints errors with their exit codes (``ErrorReport``).
enum CommandLineTool {
  static let version = healthportVersion

  static var commands: [CommandDescriptor] {
    [
      InfoCommand.descriptor, ConvertCommand.descriptor, StepsCommand.descriptor, WorkoutsCommand.descriptor,
      StatsCommand.descriptor, SleepCommand.descriptor, ProfileCommand.descriptor, ChartCommand.descriptor,
      RoutesCommand.descriptor, LoadCommand.descriptor,
    ]
  }

  static let helpOption = OptionSpec(name: "--help", short: "-h", valueName: nil, help: "Show help information.")
  static let versionOption = OptionSpec(name: "--version", short: "-v", valueName: nil, help: "Show the version.")

  /// The options of `healthport` itself.
  static var topOptions: [OptionSpec] { [versionOption, helpOption] }

  static var help: String {
    var text = """
      OVERVIEW: healthport — read an Apple Health export (export.zip, export.xml) and turn it into data you can use.
      All processing is local: health data never leaves this machine.

      USAGE: healthport <subcommand> [options] [INPUT]

      INPUT is an export.xml, an export.zip, an unzipped apple_health_export/ folder, or - (stdin,
      also when omitted).

      OPTIONS:
      \(topOptions.map(\.helpLine).joined())
      SUBCOMMANDS:

      """
    for command in commands { text += "  " + command.name.padding(to: 12) + command.summary + "\n" }
    text += """

        See 'healthport <subcommand> --help' for detailed help.

      ENVIRONMENT:
        HEALTHPORT_THREADS=N        Parsers reading one XML export at once (1: one thread).
                                    Default: the number of processors.

      """
    return text
  }

  /// The signals that end a run early: Ctrl-C, `kill`, a closed terminal.
  static let interruptingSignals = [SIGINT, SIGTERM, SIGHUP]

  /// Installs the handler of ``interruptingSignals``: it removes the temporary outputs of this
  /// process (``TemporaryFiles``), then restores the default action and raises the signal again, so
  /// that the process still dies of it (a shell reports 130 for Ctrl-C). A signal that whoever
  /// started healthport ignored (`nohup`, a background job) stays ignored. SIGPIPE is left alone.
  static func installSignalHandlers() {
    TemporaryFiles.prepare()
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in
      TemporaryFiles.removeAll()
      var restore = sigaction()
      restore.__sigaction_handler.sa_handler = SIG_DFL
      sigemptyset(&restore.sa_mask)
      _ = sigaction(signal, &restore, nil)
      // Delivered when the handler returns, the signal being blocked until then.
      _ = raise(signal)
    }
    sigemptyset(&action.sa_mask)
    for signal in interruptingSignals { sigaddset(&action.sa_mask, signal) }
    for signal in interruptingSignals {
      var previous = sigaction()
      guard sigaction(signal, nil, &previous) == 0 else { continue }
      if let handler = previous.__sigaction_handler.sa_handler,
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
      {
        continue
      }
      _ = sigaction(signal, &action, nil)
    }
  }

  static func run(_ arguments: [String]) -> Int32 {
    // The subcommand that runs, once known: its usage errors name it.
    var running: String?
    do {
      guard let first = arguments.first else {
        writeError(HelpText.wrap(help, width: HelpText.width(fileDescriptor: 2)))
        return 64
      }
      switch first {
      case "-h", "--help", "help":
        if arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
          printHelp(command.help)
        } else {
          printHelp(help)
        }
        return 0
      case "--version", "-v", "-V":
        print("healthport \(version)")
        return 0
      case "--generate-completion", "--generate-manpage":
        // Not in the help: what `make install` writes, from the options help lists (docs/install.md).
        print(try InstallFiles.generate(first, arguments.dropFirst()), terminator: "")
        return 0
      default: break
      }
      guard let command = commands.first(where: { $0.name == first }) else {
        let hint = NameSuggestion.closest(to: first, in: commands.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
        throw HealthPortError(
          .usage, message: "unknown subcommand '\(first)'\(hint)\nSee 'healthport --help'.")
      }
      let rest = Array(arguments.dropFirst())
      if rest.contains("-h") || rest.contains("--help") {
        let end = rest.firstIndex(of: "--") ?? rest.count
        if rest[..<end].contains("-h") || rest[..<end].contains("--help") {
          printHelp(command.help)
          return 0
        }
      }
      running = command.name
      let parsed = try ParsedArguments(rest, options: command.options, command: command.name)
      try command.run(parsed)
      return 0
    } catch let error as HealthPortError {
      let report = ErrorReport.report(error, command: running)
      writeError(report.text + "\n")
      return report.exitCode
    } catch is BrokenPipeError {
      return 0
    } catch {
      writeError("healthport: error: \(error)\n")
      return 1
    }
  }

  /// Prints help on stdout, wrapped to its width (``HelpText``).
  static func printHelp(_ text: String) {
    print(HelpText.wrap(text, width: HelpText.width(fileDescriptor: 1)), terminator: "")
  }

  /// Writes a message to stderr, its control characters (but newlines) shown as `\x1b`-style
  /// escapes: names in messages come from exports, which may hold terminal escape sequences.
  static func writeError(_ text: String) {
    writeTerminal(text.escapingControls(keepingNewlines: true))
  }

  /// Writes to stderr as it is (the progress bar's own cursor movements).
  static func writeTerminal(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
  }
}
