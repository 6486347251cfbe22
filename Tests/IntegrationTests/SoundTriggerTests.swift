import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// `--trigger` with `--pre-roll` and `--trigger-stop`, against a test signal that plays at full
/// level only in chosen windows of JACK frames and at exactly 2^-10 of it elsewhere (under -72
/// dBFS, below any trigger level used here): each take must start exactly a pre-roll before the
/// window's first frame, hold the quiet frames before it without a gap, and end exactly the stop
/// length after the window's last frame.
final class SoundTriggerTests: JackTestCase {
    static let preRoll = 4_800      // 0.1 s
    static let quietStop = 12_000   // 0.25 s
    /// -40 dBFS: 0.01, reached by the signal's loud part wherever |code| ≥ 83,886.
    static let level: Float = 0.01

    /// A frame from `frame` on where channel 0 of the signal is loud (well above the level), with
    /// the frame before it loud too (to end a window on).
    func loudFrame(from frame: UInt32) -> UInt32 {
        var candidate = frame
        while abs(TestSignal.sample(frameTime: candidate, channel: 0)) < 0.05
                || abs(TestSignal.sample(frameTime: FrameTime.advance(candidate, by: -1), channel: 0)) < 0.05 {
            candidate = FrameTime.advance(candidate, by: 997)
        }
        return candidate
    }

    /// Checks every sample of `file`: frame `p` is the signal of JACK frame `start + p`, at full
    /// level inside `window` and at 2^-10 outside it.
    func assertTake(_ file: String, start: UInt32, frames: Int, window: (from: UInt32, to: UInt32), line: UInt = #line) throws {
        let sound = try SoundFile.open(readingFrom: path(file))
        XCTAssertEqual(sound.frames, Int64(frames), "\(file) length", line: line)
        var samples = [Float](repeating: 0, count: frames * 2)
        let read = samples.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: frames) }
        XCTAssertEqual(read, frames, line: line)
        var wrong = 0
        for index in 0..<read {
            let frame = FrameTime.advance(start, by: index)
            let loud = FrameTime.distance(from: window.from, to: frame) >= 0 && FrameTime.distance(from: frame, to: window.to) > 0
            for channel in 0..<2 {
                let expected = TestSignal.sample(frameTime: frame, channel: channel) * (loud ? 1 : 1.0 / 1_024)
                if samples[index * 2 + channel] != expected {
                    if wrong < 3 { XCTFail("\(file) frame \(index) channel \(channel + 1): not the signal of JACK frame \(frame)", line: line) }
                    wrong += 1
                }
            }
        }
        XCTAssertEqual(wrong, 0, line: line)
    }

    func testEachSoundIsATakeFromAPreRollBeforeItsFirstSampleToTheStopLengthAfterItsLast() throws {
        var windows: [(from: UInt32, to: UInt32)] = []
        // Repeated on xruns: the subject is the exact frame sound triggers on, and an xrun that skips
        // frames around it moves that frame (and the gated signal is not the plain code the verifier reads).
        let jcap = try withoutXruns { () -> Subprocess in
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) { try FileManager.default.removeItem(atPath: path(name)) }
            let now = observer.estimatedFrameTime
            let first = loudFrame(from: FrameTime.advance(now, by: 192_000))
            let firstEnd = loudFrame(from: FrameTime.advance(first, by: 20_000))
            let second = loudFrame(from: FrameTime.advance(firstEnd, by: 60_000))
            let secondEnd = loudFrame(from: FrameTime.advance(second, by: 15_000))
            windows = [(first, firstEnd), (second, secondEnd)]
            let gate = try Subprocess(try Executables.built("jcap-testsignal"),
                                      ["play", "--channels", "2", "--name", "gate",
                                       "--loud", windows.map { "\($0.from):\($0.to)" }.joined(separator: ",")],
                                      server: server.name, directory: directory)
            defer {
                gate.signal(SIGTERM)
                _ = try? gate.wait(timeout: 10)
            }
            try Self.waitFor("the gated signal") { observer.audioOutputPorts().contains("gate:out_2") }
            let jcap = try launchJcap(["--port", "gate:out_1", "--port", "gate:out_2", "--trigger", "-40dB",
                                       "--trigger-stop", "0.25s", "--pre-roll", "0.1s", "--meter", "none", "--bit-depth", "float", "-o", "sound.wav", "-v"])
            try Self.waitFor("jcap to wait for sound") { jcap.errorOutput.contains("waiting for sound at -40dB") }
            XCTAssertGreaterThan(FrameTime.distance(from: observer.estimatedFrameTime, to: first), Self.preRoll,
                                 "jcap got ready only after the pre-roll before the first window began")
            try Self.waitFor("both takes to be written", timeout: 30) {
                jcap.errorOutput.components(separatedBy: "jcap: wrote ").count - 1 == 2
            }
            jcap.signal(SIGINT)
            return jcap
        }
        XCTAssertEqual(try jcap.wait(timeout: 20), 0, jcap.errorOutput)
        for (index, window) in windows.enumerated() {
            let start = FrameTime.advance(window.from, by: -Self.preRoll)
            // The last loud frame is window.to - 1; the take ends the stop length after it.
            let frames = FrameTime.distance(from: start, to: window.to) + Self.quietStop
            try assertTake("sound-00\(index + 1).wav", start: start, frames: frames, window: window)
            XCTAssertTrue(jcap.errorOutput.contains("triggered at JACK frame \(window.from), \(Self.preRoll) frames into the take"),
                          jcap.errorOutput)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("sound-003.wav")))
    }

    func testASessionLogsWhereTheTriggerFellInTheTake() throws {
        let session = path("gated.toml")
        try "[session]\nname = \"gated\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n[[track]]\nname = \"L\"\nsource = \"gate2:out_1\"\n\n[[track]]\nname = \"R\"\nsource = \"gate2:out_2\"\ngroup = \"pair\"\n"
            .replacingOccurrences(of: "name = \"L\"\nsource = \"gate2:out_1\"\n", with: "name = \"L\"\nsource = \"gate2:out_1\"\ngroup = \"pair\"\n")
            .write(toFile: session, atomically: true, encoding: .utf8)
        var window: (from: UInt32, to: UInt32) = (0, 0)
        // Repeated on xruns: the subject is the exact frame sound triggers on, and an xrun that skips
        // frames around it moves that frame (and the gated signal is not the plain code the verifier reads).
        let jcap = try withoutXruns { () -> Subprocess in
            try? FileManager.default.removeItem(atPath: path("gated"))
            let first = loudFrame(from: FrameTime.advance(observer.estimatedFrameTime, by: 192_000))
            window = (first, loudFrame(from: FrameTime.advance(first, by: 10_000)))
            let gate = try Subprocess(try Executables.built("jcap-testsignal"),
                                      ["play", "--channels", "2", "--name", "gate2", "--loud", "\(window.from):\(window.to)"],
                                      server: server.name, directory: directory)
            defer {
                gate.signal(SIGTERM)
                _ = try? gate.wait(timeout: 10)
            }
            try Self.waitFor("the gated signal") { observer.audioOutputPorts().contains("gate2:out_2") }
            let jcap = try launchJcap(["session", session, "--trigger", "-40", "--trigger-stop", "12000f", "--pre-roll", "4800f",
                                       "--meter", "none"])
            try Self.waitFor("the session to wait for sound") { jcap.errorOutput.contains("waiting for sound at -40") }
            XCTAssertGreaterThan(FrameTime.distance(from: observer.estimatedFrameTime, to: window.from), Self.preRoll,
                                 "the session got ready only after the pre-roll before the window began")
            try Self.waitFor("the take to be logged", timeout: 30) {
                ((try? TakeLog(folder: path("gated")).entries()) ?? []).contains { $0.status == .complete }
            }
            jcap.signal(SIGINT)
            return jcap
        }
        XCTAssertEqual(try jcap.wait(timeout: 20), 0, jcap.errorOutput)
        let entry = try XCTUnwrap(try TakeLog(folder: path("gated")).entries().first)
        XCTAssertEqual(entry.triggerPosition, Int64(Self.preRoll))
        XCTAssertEqual(entry.startFrame, FrameTime.advance(window.from, by: -Self.preRoll))
        try assertTake("gated/take-001-pair.wav", start: FrameTime.advance(window.from, by: -Self.preRoll),
                       frames: FrameTime.distance(from: window.from, to: window.to) + Self.preRoll + Self.quietStop, window: window)
    }

    func testBadTriggerOptionsAreRefusedInOneLine() throws {
        let cases: [(arguments: [String], mentions: String, status: ExitStatus)] = [
            (["--trigger", "loud"], "loud", .usage), (["--trigger", "+3dB"], "+3dB", .usage),
            (["--pre-roll", "1s"], "--pre-roll", .usage), (["--trigger-stop", "1s"], "--trigger-stop", .usage),
            (["--trigger", "-40dB", "--transport"], "--transport", .usage),
            (["--trigger", "-40dB", "--align-latency"], "--align-latency", .usage),
            (["--transport", "--split", "1m"], "--split", .usage),
            (["--trigger", "-40dB", "--trigger-stop", "0s"], "0s", .badTime),
        ]
        for (arguments, mentions, status) in cases {
            let run = try runJcap(signalPorts(1) + arguments + ["-o", "no.wav"])
            XCTAssertEqual(run.status, status.rawValue, "\(arguments): \(run.errors)")
            XCTAssertEqual(run.errors.split(separator: "\n").filter { $0.contains("error") }.count, 1, run.errors)
            XCTAssertTrue(run.errors.contains(mentions), "\(arguments): \(run.errors)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("no.wav")))
        }
    }
}
