import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// Real recordings with the jcap executable against a private dummy jackd, checked sample by sample
/// against the test signal.
final class CaptureIntegrationTests: JackTestCase {
    /// Runs jcap to the end with `--meter json` and checks its take against what it reported: the
    /// exit status that report calls for (0 when it reported nothing), and every sample of the
    /// files in place or inside a reported span. Returns the run, the account and the file's check.
    private func reportedTake(_ arguments: [String], file name: String, line: UInt = #line) throws
        -> (run: (status: Int32, errors: String, account: TakeAccount?), account: TakeAccount, report: TestSignalReport) {
        let run = try runJcapReporting(arguments)
        let account = try XCTUnwrap(run.account, run.errors, line: line)
        XCTAssertEqual(run.status, exitStatus(reporting: account), run.errors, line: line)
        assertAccountedFor(account, name, line: line)
        return (run, account, try check(name))
    }

    func testTwoChannelsEverySampleExactLength() throws {
        let (_, _, report) = try reportedTake(signalPorts(2) + ["--for", "1.01s", "-o", "two.wav"], file: "two.wav")
        XCTAssertEqual(report.channels, 2)
        XCTAssertEqual(report.frames, 48_480, "1.01 s at 48 kHz is 48,480 frames")
    }

    func testEightChannelsToFlacEverySample() throws {
        let (_, _, report) = try reportedTake(signalPorts(8) + ["--for", "2s", "-o", "eight.flac"], file: "eight.flac")
        XCTAssertEqual(report.channels, 8)
        XCTAssertEqual(report.frames, 96_000)
    }

    func testFormatFlagsEverySample() throws {
        // ALAC and little-endian AIFF hold the 24-bit test signal exactly.
        for (arguments, file, name) in [(["--format", "alac", "-o", "lossless.caf"], "lossless.caf", "ALAC 24-bit"),
                                        (["--endian", "little", "-o", "sowt.aiff"], "sowt.aiff", "24-bit little-endian AIFF")] {
            let (run, _, report) = try reportedTake(signalPorts(4) + ["--for", "24000f"] + arguments, file: file)
            XCTAssertTrue(run.errors.contains("recording \(name) to"), run.errors)
            XCTAssertEqual(report.frames, 24_000)
        }
    }

    func testOggVorbisTakeIsReadable() throws {
        // The writer updates headers twice a second; an Ogg Vorbis file must come out of that intact.
        // Lost frames would be written as silence: the length holds through xruns.
        let jcap = try launchJcap(signalPorts(2) + ["--for", "96000f", "--quality", "0.5", "-o", "lossy.ogg", "--meter", "json"])
        let run = (status: try jcap.wait(), errors: jcap.errorOutput)
        XCTAssertEqual(run.status, exitStatus(reportedIn: jcap.output), run.errors)
        XCTAssertTrue(run.errors.contains("Ogg Vorbis q0.5"), run.errors)
        let file = try SoundFile.open(readingFrom: path("lossy.ogg"))
        XCTAssertEqual(file.channels, 2)
        XCTAssertEqual(Double(file.frames), 96_000, accuracy: 2_048)
    }

    func testSixtyFourChannelsInNaturalOrderEverySample() throws {
        let (run, _, report) = try reportedTake(["--port", "sig:out_*", "--for", "48000f", "--bit-depth", "float", "-o", "many.w64"],
                                                file: "many.w64")
        XCTAssertTrue(run.errors.contains("  jcap:in_1..64 <- sig:out_1..64\n"), "every channel wired in order, in one line: \(run.errors)")
        XCTAssertFalse(run.errors.contains("channel 10:"), "a line per channel only with -v")
        XCTAssertEqual(report.channels, 64)
        XCTAssertEqual(report.frames, 48_000)
    }

    func testAbsoluteStartFrameAndLengthAreExact() throws {
        let start = frameAhead(3)
        let (run, account, report) = try reportedTake(signalPorts(4) + ["--at", "@\(start)", "--for", "12345f", "-o", "at.wav"],
                                                      file: "at.wav")
        XCTAssertEqual(report.frames, 12_345)
        XCTAssertEqual(account.startFrame, start, "the first frame is frame \(start) exactly (each sample checked against it)")
        XCTAssertTrue(run.errors.contains("JACK frames \(start) to \(FrameTime.advance(start, by: 12_345))"), run.errors)
    }

    func testRelativeStartIsAfterReadyAndExact() throws {
        let launched = observer.estimatedFrameTime
        let (run, account, report) = try reportedTake(signalPorts(2) + ["--at", "+500ms", "--for", "250ms", "-o", "rel.wav"],
                                                      file: "rel.wav")
        XCTAssertEqual(report.frames, 12_000)
        let scheduled = try XCTUnwrap(number(after: "starting at frame ", in: run.errors), run.errors)
        XCTAssertEqual(account.startFrame, UInt32(scheduled), "starts on the frame it announced")
        let delay = FrameTime.distance(from: launched, to: account.startFrame)
        XCTAssertGreaterThanOrEqual(delay, 24_000, "starts at least 500 ms after jcap was launched")
        XCTAssertLessThan(delay, 24_000 + 10 * server.sampleRate)
    }

    func testInterruptKeepsEveryFrameUpToTheStopFrame() throws {
        let jcap = try signalledTake(signalPorts(8) + ["-o", "int.wav", "--meter", "json", "-v"], after: 1.2, SIGINT)
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(try jcap.wait(), exitStatus(reporting: account), jcap.errorOutput)
        let stop = try XCTUnwrap(number(after: "stopping before JACK frame ", in: jcap.errorOutput), jcap.errorOutput)
        assertAccountedFor(account)
        let report = try check("int.wav")
        XCTAssertGreaterThan(report.frames, 48_000)
        XCTAssertEqual(FrameTime.advance(account.startFrame, by: Int(report.frames)), UInt32(stop),
                       "the take ends on the stop frame, partial period included")
    }

    func testTerminateAlsoFinishesTheFile() throws {
        let jcap = try signalledTake(signalPorts(2) + ["-o", "term.caf", "--meter", "json"], after: 0.5, SIGTERM)
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(try jcap.wait(), exitStatus(reporting: account), jcap.errorOutput)
        assertAccountedFor(account)
        XCTAssertGreaterThan(try check("term.caf").frames, 0)
    }

    /// Runs jcap without a length and sends it `signal` `seconds` after it starts recording.
    private func signalledTake(_ arguments: [String], after seconds: Double, _ signal: Int32) throws -> Subprocess {
        let jcap = try launchJcap(arguments)
        try Self.waitFor("recording") { jcap.errorOutput.contains("recording") }
        usleep(useconds_t(seconds * 1_000_000))
        jcap.signal(signal)
        _ = try jcap.wait()
        return jcap
    }

    /// A killed jcap leaves no summary: the file is checked against the xrun lines it said with
    /// -v (`spansNearXrunsTold`), every sample the signal in place elsewhere.
    func testKillNineLeavesAReadableFile() throws {
        let jcap = try launchJcap(signalPorts(8) + ["-o", "killed.wav", "-v"])
        try Self.waitFor("recording") { jcap.errorOutput.contains("recording") }
        usleep(3_000_000)
        let killedAt = observer.estimatedFrameTime
        jcap.signal(SIGKILL)
        _ = try jcap.wait()
        let report = try check("killed.wav")
        let firstFrameTime = try XCTUnwrap(report.firstFrameTime, report.description)
        let account = TakeAccount(startFrame: UInt32(firstFrameTime), files: [.init(path: path("killed.wav"), signalChannels: Array(0..<8))],
                                  uncertainSpans: spansNearXrunsTold(in: jcap.errorOutput))
        assertAccountedFor(account, jcap.errorOutput)
        let recordedSpan = signalDistance(from: firstFrameTime, to: signalTime(killedAt))
        XCTAssertGreaterThanOrEqual(Int(report.frames), recordedSpan - server.sampleRate,
                                    "all but the last second is readable")
    }

    func testNoConnectWaitsForPortsPatchedByHand() throws {
        let jcap = try launchJcap(["--no-connect", "--name", "patchme", "--port", "sig:out_3", "--for", "0.5s", "-o", "patched.wav",
                                   "--meter", "json"])
        try Self.waitFor("jcap's port") { observer.audioPorts(flags: .init(0)).contains("patchme:in_1") }
        usleep(300_000)
        XCTAssertTrue(jcap.process.isRunning, "jcap waits while its port is unconnected")
        try observer.connect("sig:out_1", to: "patchme:in_1")
        _ = try jcap.wait()
        var account = try summaryAccount(jcap.output)
        XCTAssertEqual(try jcap.wait(), exitStatus(reporting: account), jcap.errorOutput)
        XCTAssertEqual(try check("patched.wav").frames, 24_000)
        // It records what was patched in (channel 1 of the signal), not the source it names.
        account.files[0].signalChannels = [0]
        assertAccountedFor(account, "records what was patched in")
    }

    func testSecondInstanceGetsAUniqueName() throws {
        let first = try launchJcap(["--name", "twin"] + signalPorts(1) + ["-o", "first.wav", "--meter", "json"])
        try Self.waitFor("first instance") { first.errorOutput.contains("recording") }
        let second = try runJcapReporting(["--name", "twin"] + signalPorts(1) + ["--for", "0.2s", "-o", "second.wav"])
        first.signal(SIGINT)
        _ = try first.wait()
        XCTAssertEqual(try first.wait(), exitStatus(reportedIn: first.output), first.errorOutput)
        let account = try XCTUnwrap(second.account, second.errors)
        XCTAssertEqual(second.status, exitStatus(reporting: account), second.errors)
        XCTAssertTrue(first.errorOutput.contains("client 'twin'"), first.errorOutput)
        XCTAssertFalse(second.errors.contains("client 'twin',"), second.errors)
        XCTAssertTrue(second.errors.contains("client 'twin-"), second.errors)
        assertAccountedFor(account)
    }

    func testDefaultsRecordChannelsOneAndTwoToANewTakeName() throws {
        // The dummy server's capture ports: only names and length are checked, and lost frames
        // would be written as silence, so xruns change nothing here.
        try Data("not a take".utf8).write(to: URL(fileURLWithPath: path("take-004.wav")))
        let jcap = try launchJcap(["--for", "100ms", "--meter", "json"])
        let run = (status: try jcap.wait(), errors: jcap.errorOutput)
        XCTAssertEqual(run.status, exitStatus(reportedIn: jcap.output), run.errors)
        XCTAssertTrue(run.errors.contains("jcap:in_1..2 <- system:capture_1..2"), "channels 1 and 2: \(run.errors)")
        let file = try SoundFile.open(readingFrom: path("take-005.wav"))
        XCTAssertEqual(file.channels, 2)
        XCTAssertEqual(file.frames, 4_800)
        XCTAssertEqual(try String(contentsOfFile: path("take-004.wav"), encoding: .utf8), "not a take")
    }

    func testBadInputGetsOneLineErrorsAndDistinctStatuses() throws {
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path("keep.wav")))
        let past = FrameTime.advance(observer.estimatedFrameTime, by: -48_000)
        var earlier = time_t(WallClockTime.nowMicrosecondsSinceEpoch() / 1_000_000 - 120)
        var parts = tm()
        localtime_r(&earlier, &parts)
        let twoMinutesAgo = String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
        var cases: [(arguments: [String], status: ExitStatus, mentions: String)] = [
            (["--port", "nosuch:out_*", "-o", "a.wav"], .unknownSource, "nosuch:out_*"),
            (["--channels", "1,99", "-o", "a.wav"], .unknownSource, "99"),
            (["--channels", "1-x"], .unknownSource, "1-x"),
            (["--for", "1.x"], .badTime, "1.x"),
            (["--at", "25:00:00"], .badTime, "25:00:00"),
            (["--at", "@\(past)", "--for", "1s", "-o", "past.wav"], .startInPast, "@\(past)"),
            (["-o", "keep.wav", "--for", "1s"], .outputExists, "keep.wav"),
            (["-o", "nofolder/a.wav"], .outputUnwritable, "nofolder"),
            (["-o", "a.mp4"], .unsupportedFormat, ".mp4"),
            (["-o", "a.flac", "--bit-depth", "float"], .unsupportedFormat, "FLAC"),
            (["--port", "sig:out_?", "--port", "sig:out_1?", "-o", "a.flac"], .tooManyChannels, "8"),
            (["--server", "no-such-server"], .noServer, "no-such-server"),
            (["--bogus"], .usage, "bogus"),
            (["--name", server.name, "-o", "same.wav"], .jackRefused, "server's name"),
            // Refused before any port or file, naming the limit (these used to abort, or wait forever).
            (["--buffer", "100000s", "-o", "big.wav"], .usage,
             "jcap: error: the buffer cannot hold 100000s: this machine can hold at most "),
            (["--at", "+99999999999s", "--for", "1s", "-o", "far.wav"], .badTime,
             "jcap: error: bad start time '+99999999999s': JACK's 32-bit frame clock can schedule a start at most 12:25:39 ahead at 48000 Hz"),
            (["--at", "+12:25:40", "-o", "far2.wav"], .badTime, "at most 12:25:39 ahead at 48000 Hz"),
            (["--for", "999999999999h", "-o", "long.wav"], .badTime, "too long"),
        ]
        if parts.tm_hour < 23 || parts.tm_min < 58 {  // two minutes ago is still today
            cases.append((["--at", twoMinutesAgo, "-o", "wall.wav"], .startInPast, twoMinutesAgo))
        }
        for (arguments, status, mentions) in cases {
            let run = try runJcap(arguments, timeout: 30)
            XCTAssertEqual(run.status, status.rawValue, "\(arguments): \(run.errors)")
            let errorLines = run.errors.split(separator: "\n").filter { $0.contains("error") }
            XCTAssertEqual(errorLines.count, 1, "\(arguments): one error line: \(run.errors)")
            XCTAssertTrue(run.errors.contains(mentions), "\(arguments): names '\(mentions)': \(run.errors)")
        }
        XCTAssertEqual(try String(contentsOfFile: path("keep.wav"), encoding: .utf8), "precious")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory)
        XCTAssertEqual(left, ["keep.wav"], "no failed run leaves a file behind")
    }

    /// The buffer refusal names seconds of this channel count at this rate, and registers no port.
    func testABufferTooLongNamesTheLongestThisMachineHolds() throws {
        let run = try runJcap(signalPorts(4) + ["--buffer", "1000000s", "--name", "bigbuffer", "-o", "big.wav"], timeout: 30)
        XCTAssertEqual(run.status, ExitStatus.usage.rawValue, run.errors)
        let line = try XCTUnwrap(run.errors.split(separator: "\n").first { $0.contains("error") }, run.errors)
        XCTAssertTrue(line.hasPrefix("jcap: error: the buffer cannot hold 1000000s: this machine can hold at most "), String(line))
        XCTAssertTrue(line.hasSuffix("s of 4 channels at 48000 Hz"), String(line))
        XCTAssertFalse(run.errors.contains("channel 1:"), "no port was registered: \(run.errors)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("big.wav")))
    }

    /// CaptureClient's and Take's public calls with bad input: typed errors and silent meters,
    /// never traps.
    func testCaptureClientAndTakeRefuseBadInputWithTypedErrors() throws {
        func configuration(_ name: String) -> CaptureConfiguration {
            var configuration = CaptureConfiguration()
            configuration.clientName = "session"
            configuration.serverName = server.name
            configuration.sources = .ports(["sig:out_1", "sig:out_2"])
            configuration.outputPath = path(name)
            return configuration
        }
        var huge = configuration("huge.wav")
        huge.bufferSeconds = 1e9
        XCTAssertThrowsError(try OneTake(configuration: huge)) {
            guard case .bufferTooLarge(1e9, _, 2, 48_000)? = $0 as? CaptureError else { return XCTFail("\($0)") }
        }
        for length in [Double.nan, .infinity, 0, -1] {
            var bad = configuration("nan.wav")
            bad.bufferSeconds = length
            XCTAssertThrowsError(try OneTake(configuration: bad)) {
                guard case .badBufferLength? = $0 as? CaptureError else { return XCTFail("\($0)") }
            }
        }
        var far = configuration("far.wav")
        far.start = .afterReady(.seconds(numerator: 99_999_999_999, denominator: 1))
        XCTAssertThrowsError(try OneTake(configuration: far)) {
            guard case .badTime? = $0 as? CaptureError else { return XCTFail("\($0)") }
        }
        var long = configuration("long.wav")
        long.duration = .seconds(numerator: Int64.max / 2, denominator: 1)
        XCTAssertThrowsError(try OneTake(configuration: long)) {
            guard case .badDuration? = $0 as? CaptureError else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "nothing created")

        let session = try OneTake(configuration: configuration("session.wav"))
        session.isMeteringEnabled = true
        XCTAssertThrowsError(try session.reassign(sources: ["sig:out_3"])) {
            guard case .badChannelList? = $0 as? CaptureError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try session.start(atFrame: nil, lengthFrames: 0)) {
            guard case .badDuration? = $0 as? CaptureError else { return XCTFail("\($0)") }
        }
        try session.start(atFrame: nil, lengthFrames: 9_600)
        XCTAssertThrowsError(try session.start(atFrame: nil, lengthFrames: 9_600)) {
            XCTAssertEqual($0 as? CaptureError, .alreadyStarted)
        }
        try Self.waitFor("the take") { session.isFinished }
        session.updateMeters()
        for channel in [-1, 2, Int.max] {
            XCTAssertEqual(session.meterReading(forChannel: channel), .silent)
            XCTAssertEqual(session.averagePower(forChannel: channel), -160)
            XCTAssertEqual(session.peakPower(forChannel: channel), -160)
        }
        XCTAssertGreaterThan(session.meterReading(forChannel: 1).highestPeak, -160)
        let report = session.finish()
        let again = session.finish()
        XCTAssertEqual(report.frames, 9_600)
        XCTAssertEqual(again.outcome, report.outcome, "a second finish gives the same report")
        XCTAssertEqual(again.frames, report.frames)
        XCTAssertEqual(again.events, report.events)
    }
}
