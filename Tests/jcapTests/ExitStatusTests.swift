import Foundation
import JackCapture
import Testing
@testable import jcap

// Swift Testing has an ExitStatus of its own.
typealias JcapExitStatus = jcap.ExitStatus

@Suite("Exit statuses")
struct ExitStatusTests {
    @Test("every kind of failure has its own status")
    func distinct() {
        let errors: [CaptureError] = [
            .jack(.noServer(server: nil)), .noSuchChannel(3, available: 2), .badTime("x", reason: ""),
            .startInPast("x"), .outputUnwritable("x", reason: ""), .outputExists("x"), .unsupportedExtension("x"),
            .tooManyChannels(container: "FLAC", maximum: 8, requested: 9), .jack(.activationFailed),
            .writeFailed(path: "x", reason: ""),
        ]
        #expect(JcapExitStatus(for: .jack(.clientNamedLikeServer("x"))) == .jackRefused)
        let statuses = errors.map { JcapExitStatus(for: $0) }
        #expect(Set(statuses).count == statuses.count)
        #expect(!statuses.contains(.success))
        #expect(JcapExitStatus(for: .badDuration("x", reason: "")) == .badTime)
        #expect(JcapExitStatus(for: .noPortMatches("x")) == .unknownSource)
        #expect(JcapExitStatus(for: .format(.noAACEncoder)) == .unsupportedFormat)
        #expect(JcapExitStatus(for: .format(.qualityOutOfRange(2))) == .unsupportedFormat)
        #expect(JcapExitStatus(for: .sampleRateConversion(inputRate: 48_000, outputRate: 0, reason: "")) == .unsupportedFormat)
        #expect(JcapExitStatus(for: .badOption(flag: "--quality", value: "x", expected: "")) == .usage)
        #expect(JcapExitStatus(for: .metadataRefused(path: "x.w64", item: "a bext chunk", reason: "")) == .unsupportedFormat)
        #expect(JcapExitStatus(for: .metadataUnreadable(path: "x.wav", item: "the 'iXML' chunk", reason: "")) == .failure)
        #expect(JcapExitStatus(for: TakeReport.Outcome.lostFrames) == .lostFrames)
        #expect(JcapExitStatus(for: TakeReport.Outcome.complete) == .success)
        #expect(Set(JcapExitStatus.allCases.map(\.rawValue)).count == JcapExitStatus.allCases.count)
    }
}

@Suite("Exit-status policy")
struct ExitStatusPolicyTests {
    @Test("the worst status wins; a take that never started counts only alone")
    func worst() {
        #expect(JcapExitStatus.worst([]) == .success)
        #expect(JcapExitStatus.worst([.success, .success]) == .success)
        #expect(JcapExitStatus.worst([.success, .cancelled]) == .cancelled)
        #expect(JcapExitStatus.worst([.cancelled, .lostFrames]) == .lostFrames)
        #expect(JcapExitStatus.worst([.lostFrames, .cancelled, .success]) == .lostFrames)
        #expect(JcapExitStatus.worst([.lostFrames, .serverShutDown]) == .serverShutDown)
        #expect(JcapExitStatus.worst([.diskFull, .writeFailed, .lostFrames]) == .diskFull)
        #expect(JcapExitStatus.worst(.writeFailed, .lostFrames) == .writeFailed)
        #expect(JcapExitStatus.worst(.lostFrames, .writeFailed) == .writeFailed, "the order of the takes does not matter")
        #expect(JcapExitStatus.worst([.usage, .failure, .lostFrames]) == .failure, "a failure without a status of its own outranks all")
    }

    @Test("every failure ranks above success, and no two alike")
    func severityOrder() {
        let order = JcapExitStatus.severityOrder
        #expect(order.first == .cancelled)
        #expect(order.last == .failure)
        #expect(order.count == JcapExitStatus.allCases.count - 1)
        #expect(Set(order.map(\.severity)).count == order.count)
        #expect(order.allSatisfy { $0.severity > JcapExitStatus.success.severity })
    }

    @Test("every status has a meaning, and each command's help lists its statuses")
    func documented() {
        for status in JcapExitStatus.allCases { #expect(!status.meaning.isEmpty) }
        for command in JcapExitStatus.Command.allCases {
            let help = JcapExitStatus.helpParagraph(for: command)
            #expect(help.hasPrefix("Exit status: 0 "))
            #expect(!help.contains("\n"), "one paragraph, wrapped by the help to the terminal")
            for status in JcapExitStatus.statuses(of: command) {
                #expect(help.contains("\(status.rawValue) \(status.meaning)"))
            }
        }
    }

    /// docs/exit-status.md is what `ExitStatus` says; `tools/exit-status-doc` (or this test with
    /// JCAP_WRITE_EXIT_STATUS_DOC set) writes it again.
    @Test("docs/exit-status.md is up to date")
    func documentMatches() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/exit-status.md")
        if ProcessInfo.processInfo.environment["JCAP_WRITE_EXIT_STATUS_DOC"] != nil {
            try JcapExitStatus.markdown.write(to: path, atomically: true, encoding: .utf8)
        }
        let written = try String(contentsOf: path, encoding: .utf8)
        #expect(written == JcapExitStatus.markdown, "docs/exit-status.md is out of date: run tools/exit-status-doc")
    }
}
