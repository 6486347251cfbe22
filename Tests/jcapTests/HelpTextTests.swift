import Foundation
import ArgumentParser
import Testing
@testable import jcap

/// Every command's `--help` as a person reads it at 80 columns: paragraphs the parser wraps
/// itself, one default per option, hints that name jcap's own commands.
@Suite("Help texts")
struct HelpTextTests {
    static let commands: [any ParsableCommand.Type] = [Jcap.self] + Jcap.configuration.subcommands

    static func help(_ command: any ParsableCommand.Type) -> String {
        Jcap.helpMessage(for: command, columns: 80)
    }

    @Test("every subcommand is covered")
    func coversEverySubcommand() {
        let names = Self.commands.map { $0.configuration.commandName ?? "" }
        #expect(names == ["jcap", "record", "session", "takes", "ports", "play", "timecode"])
    }

    /// A line break inside a paragraph is the parser's to make: it wraps each source line on its
    /// own, so a hand-broken line comes out ragged at any width but the author's. Only indented
    /// lines (examples, one command a line) may follow a line break.
    @Test("discussions break lines only between paragraphs and before indented examples",
          arguments: commands.map { $0.configuration.commandName ?? "" })
    func discussionParagraphs(name: String) throws {
        let command = try #require(Self.commands.first { $0.configuration.commandName == name })
        let discussion = command.configuration.discussion
        #expect(!discussion.isEmpty)
        for paragraph in discussion.components(separatedBy: "\n\n") {
            let lines = paragraph.split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines.dropFirst() {
                #expect(line.hasPrefix("  "), "'\(name)': a hand-broken line: '\(line)'")
                // The man page sets the discussion in a column 13 characters in.
                #expect(line.count <= 66, "'\(name)': an example too long for the man page: '\(line)'")
            }
        }
    }

    @Test("rendered at 80 columns, no line is longer", arguments: commands.map { $0.configuration.commandName ?? "" })
    func fitsEightyColumns(name: String) throws {
        let command = try #require(Self.commands.first { $0.configuration.commandName == name })
        for line in Self.help(command).split(separator: "\n") {
            #expect(line.count <= 80, "'\(name)': \(line.count) columns: '\(line)'")
        }
    }

    /// An option's entry: its first line starts with two spaces and a dash, the rest of it is
    /// indented further. The parser adds "(default: X)" to an option with a default value, so
    /// the help text must not say it again. A default is stated "(default X)" or "Default: X".
    @Test("each option names its default once", arguments: commands.map { $0.configuration.commandName ?? "" })
    func oneDefaultPerOption(name: String) throws {
        let command = try #require(Self.commands.first { $0.configuration.commandName == name })
        var entries: [String] = []
        for line in Self.help(command).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  -") {
                entries.append(String(line))
            } else if line.hasPrefix("   "), !entries.isEmpty {
                entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        #expect(!entries.isEmpty)
        for entry in entries {
            let mentions = entry.ranges(of: #/\(default\b|\bdefault:/#.ignoresCase()).count
            #expect(mentions <= 1, "'\(name)': \(entry)")
        }
    }

    @Test("hints name jcap's own commands, not JACK's tools", arguments: commands.map { $0.configuration.commandName ?? "" })
    func noForeignTools(name: String) throws {
        let command = try #require(Self.commands.first { $0.configuration.commandName == name })
        let help = Self.help(command)
        for tool in ["jack_lsp", "jack_connect", "jack_disconnect"] {
            #expect(!help.contains(tool), "'\(name)' names \(tool)")
        }
    }
}
