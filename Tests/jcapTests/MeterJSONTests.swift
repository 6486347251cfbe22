import Foundation
import Testing
@testable import jcap
import JackCapture

@Suite("Meter JSON lines")
struct MeterJSONTests {
    @Test("JSON lines parse and carry the fields")
    func json() throws {
        let line = MeterJSONLine(MeterSnapshots.snapshot(channels: 8)).encoded()
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

    @Test("a paused take says so")
    func paused() {
        #expect(MeterJSONLine(MeterSnapshots.paused()).encoded().contains("\"state\":\"paused\""))
    }

    @Test("a line is JSONEncoder's with sorted keys, byte for byte: every state, the optional keys, names with quotes, backslashes, slashes, control characters and other scripts, values of every size")
    func sameAsJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let names = ["capture_1", "Kick \"In\"", "a\\b", "bass/DI", "tab\there", "line\nbreak", "\u{1}\u{1F}\u{7F}",
                     "\u{8}\u{C}\r", "Gesang 🎤", "ünïcödé", "", "\u{2028}", "a//b\\/"]
        let states: [MeterSnapshot.State] = [.waitingForPorts, .ready, .countdown(frames: 0), .countdown(frames: 1 << 40),
                                            .recording, .playing, .paused, .finished]
        let levels: [Float] = [-160, 0, 3.1, -0.005, -0.004, 12.345, -99.999, 1e-7, -45.5, 6.02]
        var state: UInt64 = 3
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        func level() -> Float {
            next() % 2 == 0 ? levels[Int(next() % UInt64(levels.count))] : Float(Int(next() % 16_600)) / 100 - 160
        }
        func large() -> Int64 { Int64(bitPattern: next()) >> Int64(next() % 63) }
        for _ in 0..<400 {
            let channels = (0..<Int(next() % 12)).map { _ in
                MeterSnapshot.Channel(name: names[Int(next() % UInt64(names.count))],
                                      reading: MeterReading(averagePower: level(), peakPower: level(), peakHold: level(),
                                                            highestPeak: level(), clipCount: next() % 3 == 0 ? abs(large() / 2) : 0))
            }
            var snapshot = MeterSnapshot(state: states[Int(next() % UInt64(states.count))], sampleRate: 48_000,
                                         elapsedFrames: large(), remainingFrames: next() % 2 == 0 ? nil : large(),
                                         bufferFill: Double(next() % 1_000_000) / 1_000_000, xruns: large(), lostFrames: large(),
                                         channels: channels)
            if next() % 2 == 0 { snapshot.sessionName = names[Int(next() % UInt64(names.count))] }
            if next() % 2 == 0 { snapshot.takeNumber = Int(next() % 1_000) }
            if next() % 2 == 0 { snapshot.diskSecondsLeft = [0, 0.4, 59.5, 3_600, 1e13, .infinity][Int(next() % 6)] }
            let line = MeterJSONLine(snapshot)
            let expected = String(decoding: try encoder.encode(line), as: UTF8.self)
            #expect(line.encoded() == expected)
        }
    }
}
