import ArgumentParser
import JackCapture

/// jcap's root: `jcap [options]` records one take (`RecordCommand`, the default subcommand);
/// `jcap session`, `jcap takes` and `jcap ports` work with studio sessions and JACK's inputs.
@main
struct Jcap: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jcap",
        abstract: "Record JACK ports to sound files, sample-accurately.",
        discussion: """
            jcap [options] records one take: 'jcap record --help' lists its options \
            (jcap --channels 1,2 --at +3s --for 60s). 'jcap session FILE' opens a studio \
            session (sessions/README.md); 'jcap takes FILE' lists its takes; 'jcap ports' \
            lists what can be recorded; 'jcap play FILE...' plays files; 'jcap timecode' \
            writes the master's frame time for recorders on NetJACK2 slaves.
            """,
        version: JackCaptureVersion.current,
        subcommands: [RecordCommand.self, SessionCommand.self, TakesCommand.self, PortsCommand.self, PlayCommand.self,
                      TimecodeCommand.self],
        defaultSubcommand: RecordCommand.self)

    /// Like ParsableCommand's, but a bad option gets the same one-line error as every other
    /// failure, with its hint to `--help`.
    static func main() {
        do {
            var command = try parseAsRoot(SessionManagerLaunch.arguments())
            try SessionManagerLaunch.runSwitching { try command.run() }
        } catch {
            let status = exitCode(for: error)
            if status == .success || error is ExitCode { exit(withError: error) }
            StandardStreams.writeError(TerminalText.escaped("jcap: error: \(message(for: error)) (see 'jcap --help')") + "\n")
            exit(withError: ExitCode(ExitStatus.usage.rawValue))
        }
    }
}
