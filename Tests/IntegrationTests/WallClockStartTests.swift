import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// Two recorders told the same time of day (or date) start on the same frame: each decides the
/// frame in the cycle the moment falls in, from that cycle's times, which every client of the
/// server shares (`ClockStart`).
final class WallClockStartTests: JackTestCase {
    /// Starts two jcap processes `apart` seconds apart, both told to start at a moment `ahead`
    /// seconds from now (written by `forms` for each: a time of day, a date), and returns the
    /// moment as written, for each the JACK frame it started on (from its report) and its file's
    /// first test-signal frame (every sample checked against what jcap reported), and how far
    /// apart the two may start: 0, or a period when the server had an xrun from `xrunsCountFrom`
    /// seconds before the moment to 0.2 s after it. Each recorder decides in the cycle the moment
    /// falls in from times every client shares; an xrun there can skip one recorder's callback,
    /// and it then starts on the next cycle's first frame.
    func twoRecorders(secondsAhead ahead: Double, apart: Double, xrunsCountFrom: Double = 0.3, attempt: Int = 1,
                      _ forms: ((microseconds: Int64, timeOfDay: String, utc: String)) -> (String, String) = { ($0.timeOfDay, $0.timeOfDay) })
        throws -> (at: String, starts: [(reported: Int64, inFile: Int)], mayDiffer: Int64) {
        for file in ["a.wav", "b.wav"] { try? FileManager.default.removeItem(atPath: path(file)) }
        let launched = WallClockTime.nowMicrosecondsSinceEpoch()
        let (first, second) = forms(moment(secondsAhead: ahead))
        let a = try launchJcap(signalPorts(2) + ["--at", first, "--for", "2400f", "-o", "a.wav", "--meter", "json", "-v"])
        usleep(useconds_t(apart * 1_000_000))
        let b = try launchJcap(signalPorts(2) + ["--at", second, "--for", "2400f", "-o", "b.wav", "--meter", "json", "-v"])
        guard let xruns = serverXruns(aroundMoment: launched + Int64(ahead * 1_000_000), before: xrunsCountFrom) else {
            throw TestFailure("the test reached the moment late: its xruns are not known")
        }
        _ = try a.wait(timeout: 30)
        _ = try b.wait(timeout: 30)
        // A recorder not ready by the moment (a loaded host) says so and records nothing; then the
        // pair is tried again, up to three times.
        let missed = try [(a, "a.wav"), (b, "b.wav")].filter { process, file in
            guard try missedTheStart(process) else { return false }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path(file)), "a missed start leaves no file")
            return true
        }
        if !missed.isEmpty {
            print("note: \(name): \(missed.map(\.1)) missed the start, attempt \(attempt)")
            guard attempt < 3 else { throw TestFailure("a recorder missed the start in three attempts: too loaded to get ready in time") }
            return try twoRecorders(secondsAhead: ahead, apart: apart, xrunsCountFrom: xrunsCountFrom, attempt: attempt + 1, forms)
        }
        let starts = try [(a, "a.wav"), (b, "b.wav")].map { process, file in
            let account = try summaryAccount(process.output, errors: process.errorOutput)
            XCTAssertEqual(try process.wait(), exitStatus(reporting: account), process.errorOutput)
            let reported = try XCTUnwrap(number(after: "JACK frames ", in: process.errorOutput), process.errorOutput)
            XCTAssertEqual(try check(file).frames, 2_400)
            assertAccountedFor(account, file)
            return (reported, signalTime(account.startFrame))
        }
        if xruns > 0 { print("note: \(name): \(xruns) server xruns around the moment; the starts: \(starts.map(\.0))") }
        return (first, starts, xruns > 0 ? Int64(server.period) : 0)
    }

    func assertStartsAgree(_ starts: [(reported: Int64, inFile: Int)], within frames: Int64, _ message: String, line: UInt = #line) {
        XCTAssertLessThanOrEqual(abs(FrameTime.distance(from: UInt32(truncatingIfNeeded: starts[0].reported),
                                                        to: UInt32(truncatingIfNeeded: starts[1].reported))), Int(frames), message, line: line)
        XCTAssertEqual(starts[0].inFile, signalTime(UInt32(truncatingIfNeeded: starts[0].reported)), "the file begins on its reported frame", line: line)
        XCTAssertEqual(starts[1].inFile, signalTime(UInt32(truncatingIfNeeded: starts[1].reported)), "the file begins on its reported frame", line: line)
    }

    func testTwoProcessesToldOneTimeOfDayStartOnTheSameFrame() throws {
        for trial in 1...3 {
            let (at, starts, mayDiffer) = try twoRecorders(secondsAhead: 1.8, apart: 0.5)
            assertStartsAgree(starts, within: mayDiffer, "trial \(trial), --at \(at)")
        }
    }

    func testOneStartedAMomentBeforeTheTimeStillAgrees() throws {
        // The second is launched about 0.35 s before the moment: it has just time to get ready.
        let (at, starts, mayDiffer) = try twoRecorders(secondsAhead: 1.6, apart: 1.25, xrunsCountFrom: 0.3)
        assertStartsAgree(starts, within: mayDiffer, "--at \(at)")
    }

    func testADateInUTCAndTheSameMomentAsATimeOfDayAgree() throws {
        let (at, starts, mayDiffer) = try twoRecorders(secondsAhead: 1.8, apart: 0.4) { ($0.utc, $0.timeOfDay) }
        assertStartsAgree(starts, within: mayDiffer, "\(at) and the same time of day")
    }

    func testAStartTimeOfDayNamesTheFrameOfThatMomentOnJacksClock() throws {
        // The frame is the first at or after the moment, by the server's own clock estimate: the
        // observer's conversion of the same moment (jack_time_to_frames, a moment later) is
        // within a period of it; within two when the server had an xrun from the conversion to
        // just after the moment, which moves the estimate.
        let now = WallClockTime.nowMicrosecondsSinceEpoch()
        let target = (now / 1_000 + 1_500) * 1_000
        let text = moment(secondsAhead: Double(target - now) / 1_000_000).timeOfDay
        let exact = try StartTime(parsing: text).wallClockMicroseconds()!
        let xrunsBefore = Self.serverXruns.load(ordering: .relaxed)
        let expected = observer.frameTime(atMicroseconds: JackClient.currentTimeMicroseconds
            + UInt64(exact - WallClockTime.nowMicrosecondsSinceEpoch()))
        let jcap = try launchJcap(signalPorts(2) + ["--at", text, "--for", "0.1s", "-o", "wall.wav", "--meter", "json", "-v"])
        let wait = target + 200_000 - WallClockTime.nowMicrosecondsSinceEpoch()
        if wait > 0 { usleep(useconds_t(wait)) }
        let xruns = Self.serverXruns.load(ordering: .relaxed) - xrunsBefore
        let status = try jcap.wait()
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(status, exitStatus(reporting: account), jcap.errorOutput)
        XCTAssertTrue(jcap.errorOutput.contains("starting at "), jcap.errorOutput)
        XCTAssertEqual(try check("wall.wav").frames, 4_800)
        assertAccountedFor(account)
        let started = try XCTUnwrap(number(after: "JACK frames ", in: jcap.errorOutput), jcap.errorOutput)
        XCTAssertEqual(account.startFrame, UInt32(started))
        let difference = abs(FrameTime.distance(from: expected, to: UInt32(started)))
        if xruns > 0 { print("note: \(name): \(xruns) server xruns before the start; \(difference) frames from the observer's estimate") }
        XCTAssertLessThan(difference, (xruns > 0 ? 2 : 1) * server.period, "\(text) should be near JACK frame \(expected)")
    }

    func testADateTomorrowIsScheduledAndATimeThatPassedIsRefused() throws {
        // Tomorrow is beyond what JACK's 32-bit frame clock could count at 48 kHz from some
        // times of day; it is scheduled all the same, and cancelled here with SIGINT.
        let tomorrow = WallClockTime.nowMicrosecondsSinceEpoch() / 1_000_000 + 86_400 + 3_600
        var seconds = time_t(tomorrow)
        var utc = tm()
        gmtime_r(&seconds, &utc)
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                          utc.tm_hour, utc.tm_min, utc.tm_sec)
        let jcap = try launchJcap(signalPorts(1) + ["--at", text, "-o", "tomorrow.wav"])
        try Self.waitFor("jcap to schedule the take") { jcap.errorOutput.contains("starting at ") }
        jcap.signal(SIGINT)
        XCTAssertEqual(try jcap.wait(timeout: 20), ExitStatus.cancelled.rawValue, jcap.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("tomorrow.wav")), "a take cancelled before it starts leaves no file")

        let passed = WallClockTime.nowMicrosecondsSinceEpoch() / 1_000_000 - 60
        seconds = time_t(passed)
        gmtime_r(&seconds, &utc)
        let past = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                          utc.tm_hour, utc.tm_min, utc.tm_sec)
        // A minute ago, in UTC.
        let run = try runJcap(signalPorts(1) + ["--at", past + "Z", "-o", "past.wav"])
        XCTAssertEqual(run.status, ExitStatus.startInPast.rawValue, run.errors)
        XCTAssertTrue(run.errors.contains(past), run.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("past.wav")))
    }
}
