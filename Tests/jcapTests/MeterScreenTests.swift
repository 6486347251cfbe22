import Foundation
import JackCapture
import Testing
@testable import jcap

/// The console drawn as text from fixed meter values, compared with expected screens in
/// `Screens/` (plain text: what a terminal shows, without colour). To accept a change on purpose,
/// run with JCAP_RECORD_SCREENS=1, then read the new files before committing them.
@Suite("Meter console as text")
struct MeterScreenTests {
    static let screens = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Screens")

    func compare(_ lines: [String], with name: String) throws {
        let text = lines.joined(separator: "\n") + "\n"
        let file = Self.screens.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["JCAP_RECORD_SCREENS"] != nil {
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "\(name) differs from Screens/\(name).txt:\n\(text)")
    }

    @Test("screens", arguments: [(40, 2), (120, 2), (40, 64), (120, 64)])
    func screen(width: Int, channels: Int) throws {
        let lines = MeterScreen(width: width, height: 30).render(MeterSnapshots.snapshot(channels: channels))
        try compare(lines, with: "w\(width)-c\(channels)")
        for line in lines {
            #expect(line.count <= width, "fits the width: \(line)")
        }
        #expect(lines.count <= 30, "fits the height")
    }

    @Test("64 channels fold into columns; bars when they fit; forced compact")
    func layouts() {
        let many = MeterScreen(width: 120, height: 30).render(MeterSnapshots.snapshot(channels: 64))
        #expect(many.count < 30)
        #expect(many.contains { $0.components(separatedBy: "capture_").count > 3 }, "several channels a row")
        let two = MeterScreen(width: 120, height: 30).render(MeterSnapshots.snapshot(channels: 2))
        #expect(two.contains { $0.hasPrefix("capture_1 [") })
        let compact = MeterScreen(width: 120, height: 30, layout: .compact).render(MeterSnapshots.snapshot(channels: 2))
        #expect(compact.contains { $0.contains("▕") })
        let tiny = MeterScreen(width: 40, height: 6).render(MeterSnapshots.snapshot(channels: 64))
        #expect(tiny.count <= 6)
        #expect(tiny.last?.hasPrefix("…") == true, "says how many channels it could not show")
    }

    @Test("colours change nothing but colour, and mark the zones")
    func colors() {
        let plain = MeterScreen(width: 120, height: 30).render(MeterSnapshots.snapshot(channels: 8))
        let colored = MeterScreen(width: 120, height: 30, colors: true).render(MeterSnapshots.snapshot(channels: 8))
        let stripped = colored.map { $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) }
        #expect(stripped == plain)
        let clipped = colored.first { $0.hasPrefix("capture_8") } ?? ""
        for escape in ["\u{1B}[32m", "\u{1B}[33m", "\u{1B}[31m", "\u{1B}[1;41;97m"] {
            #expect(clipped.contains(escape), "zone \(escape.debugDescription) on a clipping channel")
        }
    }

    @Test("the header counts down, shows time left, and flags losses")
    func header() {
        var snapshot = MeterSnapshots.snapshot(channels: 2)
        snapshot.state = .countdown(frames: 120_000)
        #expect(MeterScreen(width: 120, height: 30).render(snapshot)[0].hasPrefix("◌ STARTS IN 00:00:02.500"))
        snapshot.state = .recording
        snapshot.xruns = 2
        snapshot.lostFrames = 512
        let header = MeterScreen(width: 120, height: 30).render(snapshot)[0]
        #expect(header.contains("● REC 00:01:23.000"))
        #expect(header.contains("left 00:00:37.000"))
        #expect(header.contains("xruns 2"))
        #expect(header.contains("lost 512"))
    }

    @Test("a paused take's header says PAUSED with the time recorded and the time left")
    func paused() {
        let header = MeterScreen(width: 80, height: 24).render(MeterSnapshots.paused())[0]
        #expect(header.contains("PAUSED 00:00:02.000"), "\(header)")
        #expect(header.contains("left 00:00:01.000"), "\(header)")
    }

    @Test("a session's tracks: numbered, armed ● or disarmed ○ (dimmed in colour)")
    func sessionTracks() throws {
        var snapshot = MeterSnapshots.snapshot(channels: 12)
        for index in snapshot.channels.indices {
            snapshot.channels[index].label = "\(index + 1)"
            snapshot.channels[index].armed = index % 4 != 3
        }
        let lines = MeterScreen(width: 80, height: 24).render(snapshot)
        try compare(lines, with: "w80-session")
        #expect(lines.contains { $0.hasPrefix(" 4○ capture_4 ") })
        #expect(lines.contains { $0.hasPrefix("12○ capture_12") })
        #expect(lines.contains { $0.hasPrefix(" 1● capture_1 ") })
        let colored = MeterScreen(width: 80, height: 24, colors: true).render(snapshot)
        #expect(colored.contains { $0.hasPrefix("\u{1B}[2m 4○ capture_4") }, "a disarmed track is dim")
        #expect(!colored.contains { $0.hasPrefix("\u{1B}[2m 1● ") })
    }
}

@Suite("Many tracks on a wide terminal")
struct ManyTracksScreenTests {
    static func sessionSnapshot(tracks: Int) -> MeterSnapshot {
        var snapshot = MeterSnapshots.snapshot(channels: tracks)
        for index in snapshot.channels.indices { snapshot.channels[index].label = "\(index + 1)" }
        return snapshot
    }

    @Test("64 tracks at 160×48: two columns of full-length bars, every track shown")
    func wide() throws {
        let lines = MeterScreen(width: 159, height: 47).render(Self.sessionSnapshot(tracks: 64))
        try MeterScreenTests().compare(lines, with: "w160-h48-c64")
        #expect(lines.count <= 47)
        for line in lines { #expect(line.count <= 159, "fits: \(line)") }
        for track in [1, 32, 33, 64] {
            #expect(lines.contains { $0.contains("\(track)● capture_\(track) ") }, "track \(track) shown")
        }
        let bar = try #require(lines.first { $0.contains("capture_1 ") })
        #expect(bar.components(separatedBy: "[").count == 3, "two bars a row: \(bar)")
        let cells = bar.split(separator: "[")[1].prefix { $0 != "]" }.count
        #expect(cells >= 40, "full-length bars: \(cells) cells")
    }

    @Test("64 tracks at 80×24: compact columns, the ones that do not fit counted")
    func small() throws {
        let lines = MeterScreen(width: 79, height: 23).render(Self.sessionSnapshot(tracks: 64))
        try MeterScreenTests().compare(lines, with: "w80-h24-c64")
        #expect(lines.count <= 23)
        for line in lines { #expect(line.count <= 79, "fits: \(line)") }
    }
}
