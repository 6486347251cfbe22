import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// `--align-latency` against sources that declare a capture latency (`jcap-testsignal play
/// --capture-latency`, which declares it without delaying its signal): each channel's file data
/// starts with the port's sample from its own latency after the start frame, sample for sample.
final class LatencyAlignmentTests: JackTestCase {
    nonisolated(unsafe) static var latent: Subprocess?
    /// `lat:out_1` declares 300 frames, `lat:out_2` 1000, `lat:out_3` 300.
    static let latencies = [300, 1_000, 300]

    override class func setUp() {
        super.setUp()
        guard setUpFailure == nil else { return }
        do {
            latent = try Subprocess(try Executables.built("jcap-testsignal"),
                                    ["play", "--channels", "3", "--name", "lat", "--capture-latency", "300,1000,300"],
                                    server: server.name, directory: NSTemporaryDirectory())
            try waitFor("latent ports") { observer.audioOutputPorts().contains("lat:out_3") }
            try waitFor("declared latencies") {
                (try? observer.port(named: "lat:out_2")).map { observer.captureLatency(of: $0).maximum } == 1_000
            }
        } catch {
            setUpFailure = error
        }
    }

    override class func tearDown() {
        latent?.signal(SIGTERM)
        _ = try? latent?.wait(timeout: 10)
        latent = nil
        super.tearDown()
    }

    /// Every sample of `file`: channel `c` (recording `lat:out_<sources[c]>`) at file frame `p`
    /// must be the test signal of that port at JACK frame `start + shifts[c] + p`, or lie in a
    /// span jcap `reported` (lost, late, uncertain). Returns the number of frames.
    func assertShifted(_ file: String, start: UInt32, sources: [Int], shifts: [Int], reported: TakeAccount,
                       line: UInt = #line) throws -> Int {
        XCTAssertEqual(try SoundFile.open(readingFrom: path(file)).channels, sources.count, line: line)
        let account = TakeAccount(startFrame: start, files: [.init(path: path(file), signalChannels: sources.map { $0 - 1 }, shifts: shifts)],
                                  pauses: reported.pauses, lostSpans: reported.lostSpans, lateCopySpans: reported.lateCopySpans,
                                  uncertainSpans: reported.uncertainSpans)
        assertAccountedFor(account, "\(file): samples out of place", line: line)
        return Int(try SoundFile.open(readingFrom: path(file)).frames)
    }

    func ports(_ numbers: [Int]) -> [String] { numbers.flatMap { ["--port", "lat:out_\($0)"] } }

    func testEachChannelStartsWithTheSoundAtTheConverterAtTheStartFrame() throws {
        let start = frameAhead(3)
        let run = try runJcapReporting(ports([1, 2]) + ["--align-latency", "--at", "@\(start)", "--for", "4800f", "-o", "aligned.wav"])
        let reported = try XCTUnwrap(run.account, run.errors)
        XCTAssertEqual(run.status, exitStatus(reporting: reported), run.errors)
        XCTAssertTrue(run.errors.contains("aligned to capture latency: jcap:in_1 300 frames, jcap:in_2 1000 frames"), run.errors)
        XCTAssertEqual(number(after: "JACK frames ", in: run.errors), Int64(start), "the report names converter time")
        XCTAssertEqual(try assertShifted("aligned.wav", start: start, sources: [1, 2], shifts: [300, 1_000], reported: reported), 4_800)
    }

    func testWithoutTheFlagNothingMoves() throws {
        let start = frameAhead(3)
        let run = try runJcapReporting(ports([1, 2]) + ["--at", "@\(start)", "--for", "4800f", "-o", "plain.wav"])
        let reported = try XCTUnwrap(run.account, run.errors)
        XCTAssertEqual(run.status, exitStatus(reporting: reported), run.errors)
        XCTAssertFalse(run.errors.contains("aligned"), run.errors)
        XCTAssertEqual(try assertShifted("plain.wav", start: start, sources: [1, 2], shifts: [0, 0], reported: reported), 4_800)
    }

    func testAnImmediateStartHasRealSoundOnEveryChannelFromItsFirstFrame() throws {
        // Started "now", the channel with less latency is delayed by 700 frames: its delay line
        // must hold real sound, not silence, when the take begins.
        let run = try runJcapReporting(ports([1, 2, 3]) + ["--align-latency", "--for", "9600f", "-o", "now.wav", "-v"])
        let reported = try XCTUnwrap(run.account, run.errors)
        XCTAssertEqual(run.status, exitStatus(reporting: reported), run.errors)
        let start = try XCTUnwrap(number(after: "JACK frames ", in: run.errors), run.errors)
        XCTAssertEqual(try assertShifted("now.wav", start: UInt32(start), sources: [1, 2, 3], shifts: [300, 1_000, 300], reported: reported), 9_600)
    }

    func testOneLatencyOnEveryChannelShiftsTheWholeTake() throws {
        let start = frameAhead(3)
        let run = try runJcapReporting(ports([1, 3]) + ["--align-latency", "--at", "@\(start)", "--for", "2000f", "-o", "uniform.wav"])
        let reported = try XCTUnwrap(run.account, run.errors)
        XCTAssertEqual(run.status, exitStatus(reporting: reported), run.errors)
        XCTAssertTrue(run.errors.contains("aligned to capture latency: 300 frames on every channel"), run.errors)
        XCTAssertEqual(try assertShifted("uniform.wav", start: start, sources: [1, 3], shifts: [300, 300], reported: reported), 2_000)
    }

    /// A delayed channel holds a change of its source its delay later: jcap's disconnection
    /// event names the take frame its silence begins on, not the cycle's first frame.
    func testADelayedChannelsDisconnectionIsSaidWhereItsSilenceBegins() throws {
        let jcap = try launchJcap(ports([1, 2]) + ["--align-latency", "--for", "96000f", "-o", "cut.wav", "--meter", "json", "-v"])
        try Self.waitFor("recording") { jcap.errorOutput.contains("recording") }
        usleep(700_000)
        try observer.disconnect("lat:out_1", from: "jcap:in_1")
        let status = try jcap.wait(timeout: 30)
        let errors = jcap.errorOutput
        // Its status the one its report calls for (an xrun's lost frames: 3).
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(status, exitStatus(reporting: account), errors)
        let said = try XCTUnwrap(number(after: "channel 1: lat:out_1 disconnected at JACK frame ", in: errors), errors)
        let position = try XCTUnwrap(number(after: "disconnected at JACK frame \(said) (take frame ", in: errors), errors)
        let file = try SoundFile.open(readingFrom: path("cut.wav"))
        var samples = [Float](repeating: 0, count: Int(file.frames) * 2)
        _ = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Int(file.frames)) }
        // Before the position jcap says, channel 1 is silent only where it reported frames lost.
        let silent = (0..<Int(file.frames)).filter { samples[$0 * 2] == 0 }
        let lost = { (frame: Int) in account.lostSpans.contains { $0.position <= frame && frame < $0.position + $0.frames } }
        let silentBefore = silent.filter { $0 < position && !lost($0) }
        XCTAssertTrue(silentBefore.isEmpty, "channel 1 (delayed 700 frames) silent from where jcap says (\(position)), "
                      + "not from \(silentBefore.first ?? 0): \(errors); \(account)")
        XCTAssertEqual(silent.filter { $0 >= position }.count, Int(file.frames) - Int(position), "and to the end")
        // Every other sample the signal in place (each channel its latency later), or inside a span jcap reported.
        assertAccountedFor(account, "cut.wav")
        // The summary says it too.
        let line = try XCTUnwrap(jcap.output.split(separator: "\n").last { $0.hasPrefix("{\"summary\"") }, jcap.output)
        let summary = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["summary"] as? [String: Any])
        let patching = try XCTUnwrap(summary["patching"] as? [[String: Any]], "\(line)")
        XCTAssertEqual(patching.count, 1, "\(line)")
        XCTAssertEqual(patching.first?["position"] as? Int, Int(position))
        XCTAssertEqual(patching.first?["channel"] as? Int, 1)
        XCTAssertEqual(patching.first?["connected"] as? Bool, false)
        XCTAssertEqual(patching.first?["exact"] as? Bool, true)
    }

    func testASessionAlignsEachTrackAndLogsTheLatencyUsed() throws {
        let text = """
            [session]
            name = "latent"
            format = "wav"
            bit_depth = "float"
            align_latency = true

            [[track]]
            name = "Near"
            source = "lat:out_1"

            [[track]]
            name = "Far"
            source = "lat:out_2"
            """
        try text.write(toFile: path("latent.toml"), atomically: true, encoding: .utf8)
        let start = frameAhead(3)
        let run = try runJcap(["session", path("latent.toml"), "--at", "@\(start)", "--for", "4800f", "--meter", "none"])
        let entry = try XCTUnwrap(try TakeLog(folder: path("latent")).entries().first)
        let reported = try takeLogAccount(folder: path("latent"), take: entry.take)
        XCTAssertEqual(run.status, exitStatus(reporting: reported), run.errors)
        XCTAssertEqual(entry.startFrame, start)
        XCTAssertEqual(entry.tracks.map(\.alignedLatency), [300, 1_000])
        XCTAssertEqual(entry.tracks.map(\.captureLatency), [300, 1_000])
        XCTAssertEqual(try assertShifted("latent/take-001-Near.wav", start: start, sources: [1], shifts: [300], reported: reported), 4_800)
        XCTAssertEqual(try assertShifted("latent/take-001-Far.wav", start: start, sources: [2], shifts: [1_000], reported: reported), 4_800)
    }

    /// The take's log entries once it has ended by itself (its length reached).
    func finished(_ take: SessionTake) throws -> [TakeLogEntry] {
        guard take.recording.waitUntilFinished(timeout: 30) != nil else { throw TestFailure("the take did not end") }
        return take.finish()
    }

    func testASessionTakeAlignsToItsArmedTracksOnly() throws {
        let text = """
            [session]
            name = "armed"
            format = "wav"
            bit_depth = "float"
            align_latency = true

            [[track]]
            name = "Near"
            source = "lat:out_1"

            [[track]]
            name = "Far"
            source = "lat:out_2"
            arm = false

            [[track]]
            name = "Also Near"
            source = "lat:out_3"
            """
        try text.write(toFile: path("armed.toml"), atomically: true, encoding: .utf8)
        let session = try StudioSession(definition: try SessionDefinition.load(path: path("armed.toml")), serverName: server.name)
        defer { session.close() }
        // Far (1000 frames) is disarmed: the take runs 300 frames behind, nothing is delayed.
        do {
            let start = frameAhead(3)
            let take = try session.record(at: .frame(start), length: .frames(4_800))
            let entry = try XCTUnwrap(finished(take).last)
            let reported = try XCTUnwrap(TakeAccount(entry, folder: path("armed")), "\(entry)")
            XCTAssertEqual(take.recording.latencyAlignment?.shift, 300)
            XCTAssertEqual(take.recording.latencyAlignment?.longestDelay, 0)
            XCTAssertEqual(entry.startFrame, start)
            XCTAssertEqual(entry.tracks.map(\.name), ["Near", "Also Near"])
            XCTAssertEqual(entry.tracks.map(\.alignedLatency), [300, 300])
            let number = String(format: "%03d", entry.take)
            XCTAssertEqual(try assertShifted("armed/take-\(number)-Near.wav", start: start, sources: [1], shifts: [300], reported: reported), 4_800)
            XCTAssertEqual(try assertShifted("armed/take-\(number)-Also Near.wav", start: start, sources: [3], shifts: [300], reported: reported), 4_800)
        }
        // Armed, Far moves the take 1000 frames behind and is in it, aligned.
        try session.setArmed(true, track: "Far")
        do {
            let start = frameAhead(3)
            let take = try session.record(at: .frame(start), length: .frames(4_800))
            let entry = try XCTUnwrap(finished(take).last)
            let reported = try XCTUnwrap(TakeAccount(entry, folder: path("armed")), "\(entry)")
            XCTAssertEqual(take.recording.latencyAlignment?.shift, 1_000)
            XCTAssertEqual(entry.tracks.map(\.alignedLatency), [300, 1_000, 300])
            let number = String(format: "%03d", entry.take)
            XCTAssertEqual(try assertShifted("armed/take-\(number)-Near.wav", start: start, sources: [1], shifts: [300], reported: reported), 4_800)
            XCTAssertEqual(try assertShifted("armed/take-\(number)-Far.wav", start: start, sources: [2], shifts: [1_000], reported: reported), 4_800)
            XCTAssertEqual(try assertShifted("armed/take-\(number)-Also Near.wav", start: start, sources: [3], shifts: [300], reported: reported), 4_800)
        }
    }
}
