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

    /// A spread of levels: silence, quiet, nominal, hot, full scale, clipped.
    static func reading(_ index: Int) -> MeterReading {
        let peaks: [Float] = [-160, -45.5, -20, -12.3, -6, -1.2, 0, 3.1]
        let peak = peaks[index % peaks.count]
        return MeterReading(averagePower: peak <= -160 ? -160 : peak - 6, peakPower: peak,
                            peakHold: peak <= -160 ? -160 : min(peak + 2, 3.1), highestPeak: peak,
                            clipCount: peak >= 0 ? Int64(index + 1) : 0)
    }

    static func snapshot(channels: Int) -> MeterSnapshot {
        MeterSnapshot(state: .recording, sampleRate: 48_000, elapsedFrames: 3_984_000, remainingFrames: 1_776_000,
                      bufferFill: 0.03, xruns: 0, lostFrames: 0,
                      channels: (0..<channels).map { MeterSnapshot.Channel(name: "capture_\($0 + 1)", reading: reading($0)) })
    }

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
        let lines = MeterScreen(width: width, height: 30).render(Self.snapshot(channels: channels))
        try compare(lines, with: "w\(width)-c\(channels)")
        for line in lines {
            #expect(line.count <= width, "fits the width: \(line)")
        }
        #expect(lines.count <= 30, "fits the height")
    }

    @Test("64 channels fold into columns; bars when they fit; forced compact")
    func layouts() {
        let many = MeterScreen(width: 120, height: 30).render(Self.snapshot(channels: 64))
        #expect(many.count < 30)
        #expect(many.contains { $0.components(separatedBy: "capture_").count > 3 }, "several channels a row")
        let two = MeterScreen(width: 120, height: 30).render(Self.snapshot(channels: 2))
        #expect(two.contains { $0.hasPrefix("capture_1 [") })
        let compact = MeterScreen(width: 120, height: 30, layout: .compact).render(Self.snapshot(channels: 2))
        #expect(compact.contains { $0.contains("▕") })
        let tiny = MeterScreen(width: 40, height: 6).render(Self.snapshot(channels: 64))
        #expect(tiny.count <= 6)
        #expect(tiny.last?.hasPrefix("…") == true, "says how many channels it could not show")
    }

    @Test("colours change nothing but colour, and mark the zones")
    func colors() {
        let plain = MeterScreen(width: 120, height: 30).render(Self.snapshot(channels: 8))
        let colored = MeterScreen(width: 120, height: 30, colors: true).render(Self.snapshot(channels: 8))
        let stripped = colored.map { $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) }
        #expect(stripped == plain)
        let clipped = colored.first { $0.hasPrefix("capture_8") } ?? ""
        for escape in ["\u{1B}[32m", "\u{1B}[33m", "\u{1B}[31m", "\u{1B}[1;41;97m"] {
            #expect(clipped.contains(escape), "zone \(escape.debugDescription) on a clipping channel")
        }
    }

    @Test("the header counts down, shows time left, and flags losses")
    func header() {
        var snapshot = Self.snapshot(channels: 2)
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

    @Test("JSON lines parse and carry the fields")
    func json() throws {
        let line = MeterJSONLine(Self.snapshot(channels: 8)).encoded()
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["elapsed_frames"] as? Int == 3_984_000)
        #expect(object["buffer_fill"] as? Double == 0.03)
        #expect(object["xruns"] as? Int == 0)
        #expect(object["lost_frames"] as? Int == 0)
        let channels = try #require(object["channels"] as? [[String: Any]])
        #expect(channels.count == 8)
        #expect(channels[2]["name"] as? String == "capture_3")
        #expect(channels[2]["peak_db"] as? Double == -20)
        #expect(channels[2]["average_db"] as? Double == -26)
        #expect(channels[2]["clip"] as? Bool == false)
        #expect(channels[7]["clip"] as? Bool == true)
        #expect(channels[0]["peak_db"] as? Double == -160)
    }

    @Test("plain status lines carry no escape codes")
    func statusLine() {
        let line = Console.statusLine(Self.snapshot(channels: 3))
        #expect(!line.contains("\u{1B}"))
        #expect(line.hasPrefix("rec 00:01:23.000 3984000 frames, buffer 3%, xruns 0, lost 0; peak dBFS: capture_1 -inf, capture_2 -45.5"))
    }

    @Test("channel names drop the client where that keeps them apart")
    func names() {
        #expect(MeterSnapshot.channelNames(sources: ["system:capture_1", "system:capture_2"]) == ["capture_1", "capture_2"])
        #expect(MeterSnapshot.channelNames(sources: ["a:out_1", "b:out_1"]) == ["a:out_1", "b:out_1"])
    }
}
