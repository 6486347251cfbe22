import ArgumentParser
import Foundation
import JackCapture

/// `jcap takes FILE`: the session's takes, newest last; `--delete N` (repeatable), `--note N TEXT`
/// and `--mark N MARK` change them. Opening the log also finds takes a killed jcap left unfinished and logs them as
/// interrupted with the frames their files really hold (unless a jcap has the session open).
struct TakesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "takes",
        abstract: "List a session's takes; delete one, set its note or mark it.",
        usage: "jcap takes <file> [<options>]",
        discussion: ExitStatus.helpParagraph(for: .takes))

    @Argument(help: ArgumentHelp("The session file.", valueName: "file"))
    var file: String

    @Flag(name: .long, help: "One JSON array of the log's entries, for programs.")
    var json = false

    @Flag(name: .shortAndLong, help: "Each take's length in frames too.")
    var verbose = false

    @Option(name: .long, help: ArgumentHelp("Remove take N's files and mark it deleted in the log; repeatable (every take is checked first).", valueName: "n"))
    var delete: [Int] = []

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Set take N's note: --note N TEXT.", valueName: "n text"))
    var note: [String] = []

    @Option(name: .long, parsing: .upToNextOption,
            help: ArgumentHelp("Mark take N: --mark N circled|false-start|no-good|none (none clears it).", valueName: "n mark"))
    var mark: [String] = []

    /// `--mark`'s take and mark (nil: clear it), once checked.
    private var markRequest: (take: Int, mark: TakeMark?)? {
        guard mark.count == 2, let take = Int(mark[0]) else { return nil }
        if mark[1] == "none" { return (take, nil) }
        return TakeMark(rawValue: mark[1]).map { (take, $0) }
    }

    func validate() throws {
        if !note.isEmpty {
            guard note.count == 2, Int(note[0]) != nil else {
                throw ValidationError("--note takes a take number and the text: --note 7 'best vocal'")
            }
        }
        if !mark.isEmpty, markRequest == nil {
            let marks = (TakeMark.allCases.map(\.rawValue) + ["none"]).joined(separator: "|")
            throw ValidationError("--mark takes a take number and a mark (\(marks)): --mark 7 circled")
        }
    }

    func run() throws {
        let console = Console(display: MeterDisplay.none)
        let definition: SessionDefinition
        do { definition = try SessionDefinition.load(path: file) } catch {
            throw console.fail(StudioSessionError.sessionFile(error))
        }
        let log = TakeLog(folder: definition.folder)
        // With the folder's lock, this process may recover killed takes and delete; without it
        // (a session is recording), the log is only read and notes and marks appended.
        var lock: SessionLock?
        if FileManager.default.fileExists(atPath: definition.folder) {
            lock = try? SessionLock(folder: definition.folder)
        }
        defer { lock?.release() }
        do throws(TakeLogError) {
            if lock != nil {
                for entry in try log.recoverInterruptedTakes() {
                    console.line("jcap: take \(entry.take) was interrupted (its process ended mid-take); logged with the \(entry.frames) frames its files hold")
                }
            }
            if let number = Int(note.first ?? ""), note.count == 2 {
                try log.setNote(take: number, note[1])
                // Empty (or blank) text removes the note: say so, not "set".
                let cleared = note[1].allSatisfy(\.isWhitespace)
                console.line("jcap: take \(number): note \(cleared ? "cleared" : "set")")
                rewriteFiles(take: number, log: log, definition: definition, console: console)
            }
            if let (number, takeMark) = markRequest {
                try log.setMark(take: number, takeMark)
                console.line("jcap: take \(number): " + (takeMark.map { "marked \(TakeListing.markText($0))" } ?? "mark cleared"))
                rewriteFiles(take: number, log: log, definition: definition, console: console)
            }
            if !delete.isEmpty {
                if lock == nil, FileManager.default.fileExists(atPath: definition.folder) {
                    _ = try SessionLock(folder: definition.folder)
                }
                // Every take named is found before any is deleted: a wrong number deletes nothing.
                for number in delete { _ = try log.entry(number) }
                var deleted: Set<Int> = []
                for number in delete where deleted.insert(number).inserted {
                    try log.delete(take: number)
                    console.line("jcap: take \(number) deleted: its files are removed, the log says so")
                }
            }
            let reading = try log.read()
            console.warnAboutSkippedLines(reading.skipped, in: log)
            let entries = reading.entries
            if json {
                StandardStreams.writeOutput(TakeListing.json(entries) + "\n")
            } else if entries.isEmpty {
                console.line("jcap: no takes yet in \(definition.folder)")
            } else {
                StandardStreams.writeOutput(TakeListing.lines(entries, showsFrames: verbose).map(TerminalText.escaped).joined(separator: "\n") + "\n")
            }
        } catch {
            throw console.fail(StudioSessionError.takeLog(error))
        }
    }

    /// The take's files get its mark and note in their iXML and bext description; a file that
    /// cannot be rewritten is named (the log has them anyway).
    private func rewriteFiles(take number: Int, log: TakeLog, definition: SessionDefinition, console: Console) {
        guard let entry = try? log.entry(number) else { return }
        for problem in TakeFileMarking.apply(entry, sessionName: definition.name, folder: definition.folder) {
            console.line("jcap: warning: take \(number): \(problem)")
        }
    }
}
