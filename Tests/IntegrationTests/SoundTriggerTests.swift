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

    /// Checks a triggered take against what jcap reported of it. Every sample outside the spans it
    /// reported is the gated signal of its JACK frame (full level inside `window`, 2^-10 outside),
    /// and a reported lost span is silent. With nothing reported near the window's edges the take
    /// starts exactly a pre-roll before the window's first frame and ends the stop length after its
    /// last; trouble reported at an edge may move it by the frames reported there and a period (a
    /// lost period hides the first or last loud frame, a late copy may show the next period's).
    func assertTriggeredTake(_ account: TakeAccount, window: (from: UInt32, to: UInt32), line: UInt = #line) throws {
        let file = try XCTUnwrap(account.files.first, "\(account)", line: line)
        XCTAssertEqual(account.files.count, 1, "\(account)", line: line)
        XCTAssertTrue(account.pauses.isEmpty, "\(account)", line: line)
        let sound = try SoundFile.open(readingFrom: file.path)
        let frames = Int(sound.frames)
        var samples = [Float](repeating: 0, count: frames * 2)
        let read = samples.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: frames) }
        XCTAssertEqual(read, frames, line: line)
        let lost = LostSpan.merged(account.lostSpans)
        let excused = LostSpan.merged(account.lostSpans + account.lateCopySpans + account.uncertainSpans)
        func inside(_ spans: [LostSpan], _ position: Int) -> Bool {
            spans.contains { Int64(position) >= $0.position && Int64(position) < $0.position + $0.frames }
        }
        var wrong = 0
        for index in 0..<read {
            let frame = account.frameTime(atPosition: Int64(index))
            let loud = FrameTime.distance(from: window.from, to: frame) >= 0 && FrameTime.distance(from: frame, to: window.to) > 0
            for channel in 0..<2 {
                let found = samples[index * 2 + channel]
                let expected = inside(lost, index) ? 0
                    : TestSignal.sample(frameTime: frame, channel: file.signalChannels[channel]) * (loud ? 1 : 1.0 / 1_024)
                if found != expected, !(inside(excused, index) && !inside(lost, index)) {
                    if wrong < 3 { XCTFail("\(file.path) frame \(index) channel \(channel + 1): \(found), not \(expected) (JACK frame \(frame)); \(account)", line: line) }
                    wrong += 1
                }
            }
        }
        XCTAssertEqual(wrong, 0, line: line)
        // How far an edge may move: the frames jcap reported within a period of where it belongs.
        let period = Int64(server.period)
        func allowance(near position: Int64) -> Int64 {
            let near = excused.filter { $0.position < position + 2 * period && $0.position + $0.frames > position - 2 * period }
            return near.isEmpty ? 0 : near.reduce(period) { $0 + $1.frames }
        }
        let windowStart = Int64(FrameTime.distance(from: account.startFrame, to: window.from))
        let startMoved = abs(windowStart - Int64(Self.preRoll))
        XCTAssertLessThanOrEqual(startMoved, allowance(near: min(windowStart, Int64(Self.preRoll))),
                                 "the take starts \(windowStart) frames before the window, not the pre-roll; \(account)", line: line)
        let windowEnd = Int64(FrameTime.distance(from: account.startFrame, to: window.to))
        let endMoved = abs(Int64(frames) - windowEnd - Int64(Self.quietStop))
        XCTAssertLessThanOrEqual(endMoved, allowance(near: min(windowEnd, Int64(frames) - Int64(Self.quietStop))),
                                 "the take ends \(Int64(frames) - windowEnd) frames after the window, not the stop length; \(account)", line: line)
        if !account.reportsNoTrouble { print("note: \(name): jcap reported trouble, the take checked against it: \(account)") }
    }

    func testEachSoundIsATakeFromAPreRollBeforeItsFirstSampleToTheStopLengthAfterItsLast() throws {
        let now = observer.estimatedFrameTime
        let first = loudFrame(from: FrameTime.advance(now, by: 192_000))
        let firstEnd = loudFrame(from: FrameTime.advance(first, by: 20_000))
        let second = loudFrame(from: FrameTime.advance(firstEnd, by: 60_000))
        let secondEnd = loudFrame(from: FrameTime.advance(second, by: 15_000))
        let windows = [(from: first, to: firstEnd), (from: second, to: secondEnd)]
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
                                   "--trigger-stop", "0.25s", "--pre-roll", "0.1s", "--meter", "json", "--bit-depth", "float", "-o", "sound.wav", "-v"])
        try Self.waitFor("jcap to wait for sound") { jcap.errorOutput.contains("waiting for sound at -40dB") }
        XCTAssertGreaterThan(FrameTime.distance(from: observer.estimatedFrameTime, to: first), Self.preRoll,
                             "jcap got ready only after the pre-roll before the first window began")
        try Self.waitFor("both takes to be written", timeout: 30) {
            jcap.errorOutput.components(separatedBy: "jcap: wrote ").count - 1 == 2
        }
        jcap.signal(SIGINT)
        let status = try jcap.wait(timeout: 20)
        let accounts = try summaryAccounts(jcap.output)
        XCTAssertEqual(accounts.map { $0.files.map(\.path) }, [[path("sound-001.wav")], [path("sound-002.wav")]], jcap.errorOutput)
        XCTAssertEqual(status, exitStatus(reportingAll: accounts), jcap.errorOutput)
        for (account, window) in zip(accounts, windows) {
            try assertTriggeredTake(account, window: window)
            let trigger = FrameTime.advance(account.startFrame, by: Self.preRoll)
            XCTAssertTrue(jcap.errorOutput.contains("triggered at JACK frame \(trigger), \(Self.preRoll) frames into the take"),
                          jcap.errorOutput)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("sound-003.wav")))
    }

    func testASessionLogsWhereTheTriggerFellInTheTake() throws {
        let session = path("gated.toml")
        try "[session]\nname = \"gated\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n[[track]]\nname = \"L\"\nsource = \"gate2:out_1\"\ngroup = \"pair\"\n\n[[track]]\nname = \"R\"\nsource = \"gate2:out_2\"\ngroup = \"pair\"\n"
            .write(toFile: session, atomically: true, encoding: .utf8)
        let first = loudFrame(from: FrameTime.advance(observer.estimatedFrameTime, by: 192_000))
        let window = (from: first, to: loudFrame(from: FrameTime.advance(first, by: 10_000)))
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
            ((try? TakeLog(folder: path("gated")).entries()) ?? []).contains { $0.status != .recording }
        }
        jcap.signal(SIGINT)
        let status = try jcap.wait(timeout: 20)
        let entry = try XCTUnwrap(try TakeLog(folder: path("gated")).entries().first)
        let account = try takeLogAccount(folder: path("gated"), take: entry.take)
        XCTAssertEqual(status, exitStatus(reportingAll: [account]), jcap.errorOutput)
        XCTAssertEqual(entry.status, takeStatus(reporting: account), "\(entry)")
        XCTAssertEqual(entry.triggerPosition, Int64(Self.preRoll))
        XCTAssertEqual(account.files.map(\.path), [path("gated/take-001-pair.wav")])
        try assertTriggeredTake(account, window: window)
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
